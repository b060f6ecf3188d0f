"""The history table's header in the HTML repr: one header cell per column,
under its group's cell when columns share a group.

(Kept apart from ``test_repr.py`` so that mutation testing of the repr
escaping part, ``benchmarks/mutation.py``, runs it too.)
"""

from html.parser import HTMLParser

import pytest

from rulebook._repr_html import _history_head


class _Header(HTMLParser):
    """Per header row, its ``th`` cells as (attributes, text)."""

    def __init__(self):
        super().__init__()
        self.rows, self._cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag == "th":
            self._cell = (dict(attrs), [])

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[1].append(data)

    def handle_endtag(self, tag):
        if tag == "th":
            self.rows[-1].append((self._cell[0], "".join(self._cell[1])))
            self._cell = None


def _parsed(columns):
    parser = _Header()
    parser.feed(_history_head(columns))
    return parser.rows


@pytest.mark.parametrize("columns", [
    ["train_loss", "nodes_expanded", "nodes_pushed", "time"],
    ["nodes_expanded", "nodes_pushed", "pruned_bound_a", "pruned_bound_b", "pruned_bound_c"],
    ["train_loss", "time", "n_refinements", "pruned_equivalence_x", "pruned_equivalence_y"],
])
def test_grouped_history_header_has_one_cell_per_column_under_its_group(columns):
    top, bottom = _parsed(columns)
    assert top[0][1] == "round"
    # Each column titled once: alone across both rows, or in the second row
    # under its group's cell, whose span is the group's size.
    alone = [attrs["title"] for attrs, _ in top[1:] if attrs.get("rowspan") == "2"]
    under = [attrs["title"] for attrs, _ in bottom]
    assert sorted(alone + under) == sorted(columns)
    groups = [int(attrs["colspan"]) for attrs, _ in top[1:] if "colspan" in attrs]
    assert sum(groups) == len(under)
    assert under == [c for c in columns if c not in alone]  # in column order


def test_ungrouped_history_header_is_one_row():
    (row,) = _parsed(["train_loss", "time"])
    assert [text for _, text in row] == ["round", "train loss", "time (s)"]
