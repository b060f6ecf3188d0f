"""The kernels each learner's default fit compiles (see ``_precompile``).

Written by ``benchmarks/record_kernel_manifest.py``; do not edit by hand.
Each entry: ("module:attribute", its own compile CPU seconds on the
recording machine, the kernels it calls, argument types per signature),
callees first.
"""

KERNELS = {'greedy': (('rulebook.objectives:_objective',
             0.06,
             (),
             ('(int64, float64, float64, float64, float64, float64)',)),
            ('rulebook._search_kernels:build_histograms_serial',
             0.21,
             (),
             ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
              "aligned=True), Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', "
              "False, aligned=True), Array(float64, 1, 'C', False, aligned=True), int64, "
              "Array(float64, 3, 'C', False, aligned=True))",)),
            ('rulebook._search_kernels:scan_histograms_serial',
             0.63,
             ('rulebook.objectives:_objective',),
             ("(Array(float64, 3, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
              "aligned=True), Array(bool, 1, 'C', False, aligned=True), Array(bool, 3, 'C', False, "
              "aligned=True), int64, float64, float64, float64, Array(float64, 1, 'C', False, "
              "aligned=True), Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', "
              'False, aligned=True))',)),
            ('rulebook._search_kernels:_bounds', 0.02, (), ('(int64, int64, int64)',)),
            ('rulebook._search_kernels:_inside',
             0.02,
             (),
             ('(uint16, int64, int64, int64, int64, int64)',)),
            ('rulebook._search_kernels:split_rows',
             0.11,
             ('rulebook._search_kernels:_bounds', 'rulebook._search_kernels:_inside'),
             ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
              "aligned=True), int64, int64, int64, int64, Array(int64, 1, 'C', False, "
              "aligned=True), Array(int64, 1, 'C', False, aligned=True))",)),
            ('rulebook._search_kernels:_prefix_counts',
             0.05,
             (),
             ("(Array(int64, 2, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
              "aligned=True), Array(bool, 1, 'C', False, aligned=True), Array(int64, 2, 'C', "
              'False, aligned=True))',)),
            ('rulebook._search_kernels:_satisfying',
             0.05,
             (),
             ('(int64, int64, int64, int64, int64, int64)',)),
            ('rulebook._search_kernels:_implied_candidates',
             0.39,
             ('rulebook._search_kernels:_satisfying',),
             ("(Array(int64, 2, 'C', False, aligned=True), Array(int64, 2, 'C', False, "
              "aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, 'C', True, "
              "aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, 'C', "
              "False, aligned=True), Array(int64, 1, 'C', True, aligned=True), int64, Array(int64, "
              "1, 'C', False, aligned=True))",)),
            ('rulebook._search_kernels:_satisfies', 0.05, (), ('(uint16, int64, int64, int64)',)),
            ('rulebook._search_kernels:_outside_rows',
             0.25,
             ('rulebook._search_kernels:_satisfies',),
             ("(Array(int64, 1, 'C', False, aligned=True), Array(bool, 1, 'C', False, "
              "aligned=True), Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', "
              "True, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, 'C', "
              "True, aligned=True), Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, "
              "'C', False, aligned=True), int64)",)),
            ('rulebook._search_kernels:_fewest_outside',
             0.08,
             ('rulebook._search_kernels:_satisfying',),
             ("(Array(int64, 1, 'C', False, aligned=True), int64, Array(int64, 2, 'C', False, "
              "aligned=True), Array(int64, 2, 'C', False, aligned=True), Array(int64, 1, 'C', "
              "True, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, 'C', "
              "True, aligned=True), Array(int64, 1, 'C', False, aligned=True), int64)",)),
            ('rulebook._search_kernels:filter_rows',
             0.1,
             ('rulebook._search_kernels:_bounds', 'rulebook._search_kernels:_inside'),
             ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
              "aligned=True), int64, int64, int64, int64, Array(int64, 1, 'C', False, "
              'aligned=True))',)),
            ('rulebook._search_kernels:greedy_cover',
             0.84,
             ('rulebook._search_kernels:_fewest_outside',
              'rulebook._search_kernels:_implied_candidates',
              'rulebook._search_kernels:_outside_rows',
              'rulebook._search_kernels:_prefix_counts',
              'rulebook._search_kernels:filter_rows'),
             ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
              "aligned=True), Array(int64, 1, 'C', False, aligned=True), Array(bool, 1, 'C', "
              "False, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, "
              "'C', True, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, "
              "'C', False, aligned=True), Array(int64, 1, 'C', True, aligned=True), int64, "
              "Array(int64, 2, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
              'aligned=True))',)),
            ('rulebook._search_kernels:redundant',
             0.18,
             ('rulebook._search_kernels:_satisfies',),
             ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
              "aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, 'C', True, "
              "aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, 'C', "
              "False, aligned=True), Array(int64, 1, 'C', False, aligned=True), int64, Array(bool, "
              "1, 'C', False, aligned=True))",))),
 'optimal': (('rulebook._bnb_extents:ratio_sort_keys',
              0.15,
              (),
              ("(Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
               "aligned=True), Array(int64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', "
               'False, aligned=True))',)),
             ('rulebook.objectives:_objective',
              0.04,
              (),
              ('(int64, float64, float64, float64, float64, float64)',)),
             ('rulebook._bound_kernels:_singletons_without_regularisation',
              0.11,
              ('rulebook.objectives:_objective',),
              ("(Array(int64, 1, 'C', False, aligned=True), int64, Array(float64, 1, 'C', False, "
               "aligned=True), Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', "
               'False, aligned=True), float64)',)),
             ('rulebook._bound_kernels:bound',
              0.29,
              ('rulebook._bound_kernels:_singletons_without_regularisation',
               'rulebook.objectives:_objective'),
              ("(Array(int64, 1, 'C', False, aligned=True), int64, Array(float64, 1, 'C', False, "
               "aligned=True), Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', "
               'False, aligned=True), int64, float64, float64)',)),
             ('rulebook._search_kernels:build_histograms_serial',
              0.18,
              (),
              ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
               "aligned=True), Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', "
               "False, aligned=True), Array(float64, 1, 'C', False, aligned=True), int64, "
               "Array(float64, 3, 'C', False, aligned=True))",)),
             ('rulebook._search_kernels:scan_histograms_serial',
              0.43,
              ('rulebook.objectives:_objective',),
              ("(Array(float64, 3, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
               "aligned=True), Array(bool, 1, 'C', False, aligned=True), Array(bool, 3, 'C', "
               "False, aligned=True), int64, float64, float64, float64, Array(float64, 1, 'C', "
               "False, aligned=True), Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, "
               "'C', False, aligned=True))",)),
             ('rulebook._search_kernels:_bounds', 0.02, (), ('(int64, int64, int64)',)),
             ('rulebook._search_kernels:_inside',
              0.01,
              (),
              ('(uint16, int64, int64, int64, int64, int64)',)),
             ('rulebook._search_kernels:split_rows',
              0.09,
              ('rulebook._search_kernels:_bounds', 'rulebook._search_kernels:_inside'),
              ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
               "aligned=True), int64, int64, int64, int64, Array(int64, 1, 'C', False, "
               "aligned=True), Array(int64, 1, 'C', False, aligned=True))",)),
             ('rulebook._pair_kernels:column_sums',
              0.22,
              (),
              ("(Array(int64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
               "aligned=True), Array(float64, 1, 'C', False, aligned=True), int64, Array(float64, "
               "2, 'C', False, aligned=True))",)),
             ('rulebook._pair_kernels:_prefix_sums',
              0.07,
              (),
              ("(Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
               "aligned=True), int64, Array(float64, 2, 'C', False, aligned=True))",)),
             ('rulebook._pair_kernels:_hull_add',
              0.13,
              (),
              ("(Array(int64, 2, 'C', False, aligned=True), int64, int64, int64, Array(float64, 2, "
               "'C', False, aligned=True), float64)",)),
             ('rulebook._pair_kernels:_value', 0.01, (), ('(float64, float64, float64, float64)',)),
             ('rulebook._pair_kernels:_ending_at',
              0.11,
              ('rulebook._pair_kernels:_value',),
              ("(int64, Array(int64, 2, 'C', False, aligned=True), int64, int64, Array(float64, 2, "
               "'C', False, aligned=True), float64, float64, float64, float64, float64, float64, "
               'int64, int64)',)),
             ('rulebook._pair_kernels:_above',
              0.08,
              ('rulebook._pair_kernels:_value',),
              ("(int64, Array(float64, 2, 'C', False, aligned=True), float64, float64, float64, "
               'float64, float64, int64, int64)',)),
             ('rulebook._pair_kernels:best_interval',
              0.13,
              ('rulebook._pair_kernels:_above',
               'rulebook._pair_kernels:_ending_at',
               'rulebook._pair_kernels:_hull_add',
               'rulebook._pair_kernels:_prefix_sums'),
              ("(Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
               "aligned=True), int64, float64, float64, Array(int64, 2, 'C', False, aligned=True), "
               "Array(float64, 2, 'C', False, aligned=True), float64)",)),
             ('rulebook._pair_kernels:best_priced_interval',
              0.18,
              ('rulebook._pair_kernels:_above',
               'rulebook._pair_kernels:_ending_at',
               'rulebook._pair_kernels:_hull_add',
               'rulebook._pair_kernels:_prefix_sums',
               'rulebook._pair_kernels:_value',
               'rulebook._pair_kernels:best_interval'),
              ("(Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
               "aligned=True), int64, float64, float64, float64, Array(int64, 2, 'C', False, "
               "aligned=True), Array(float64, 2, 'C', False, aligned=True), float64)",)),
             ('rulebook._bnb_subtrees:_sift_down',
              0.05,
              (),
              ("(Array(int64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
               'aligned=True), int64, int64)',)),
             ('rulebook._bnb_subtrees:_heap_sort',
              0.09,
              ('rulebook._bnb_subtrees:_sift_down',),
              ("(Array(int64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
               'aligned=True), int64)',)),
             ('rulebook._bnb_subtrees:_sort_by_key',
              0.08,
              ('rulebook._bnb_subtrees:_heap_sort',),
              ("(Array(int64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
               'aligned=True), int64)',)),
             ('rulebook._pair_kernels:best_set',
              0.23,
              ('rulebook._bnb_subtrees:_sort_by_key', 'rulebook._pair_kernels:_value'),
              ("(Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
               "aligned=True), int64, float64, float64, Array(float64, 1, 'C', False, "
               "aligned=True), Array(int64, 1, 'C', False, aligned=True), float64)",)),
             ('rulebook._pair_kernels:set_members',
              0.08,
              (),
              ("(int64, int64, Array(int64, 1, 'C', False, aligned=True), int64, Array(bool, 1, "
               "'C', False, aligned=True))",)),
             ('rulebook._pair_kernels:pair_grid',
              0.38,
              (),
              ("(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
               "aligned=True), Array(int64, 1, 'C', False, aligned=True), int64, int64, "
               "Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
               "aligned=True), Array(float64, 3, 'C', False, aligned=True), Array(float64, 2, 'C', "
               'False, aligned=True))',)),
             ('rulebook._pair_kernels:_node_sums',
              0.25,
              (),
              ("(Array(float64, 3, 'C', False, aligned=True), int64, int64, bool, int64, int64, "
               "int64, int64, Array(float64, 2, 'C', False, aligned=True))",)),
             ('rulebook._pair_kernels:_expressible',
              0.03,
              (),
              ('(bool, int64, int64, int64, int64, int64)',)),
             ('rulebook._pair_kernels:_solve_f',
              0.14,
              ('rulebook._pair_kernels:best_priced_interval', 'rulebook._pair_kernels:best_set'),
              ("(Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
               "aligned=True), int64, bool, float64, float64, float64, Array(int64, 2, 'C', False, "
               "aligned=True), Array(float64, 2, 'C', False, aligned=True), Array(float64, 1, 'C', "
               "False, aligned=True), Array(int64, 1, 'C', False, aligned=True), float64)",)),
             ('rulebook._pair_kernels:_c_price',
              0.02,
              (),
              ('(bool, int64, int64, int64, int64, int64)',)),
             ('rulebook._pair_kernels:_members_c',
              0.04,
              (),
              ("(bool, int64, int64, int64, int64, int64, Array(bool, 1, 'C', False, "
               'aligned=True))',)),
             ('rulebook._pair_kernels:_members_f',
              0.06,
              ('rulebook._pair_kernels:set_members',),
              ("(bool, int64, int64, int64, Array(int64, 1, 'C', False, aligned=True), Array(bool, "
               "1, 'C', False, aligned=True))",)),
             ('rulebook._pair_kernels:_free_ratio',
              0.07,
              (),
              ("(bool, int64, int64, int64, int64, int64, Array(float64, 2, 'C', False, "
               'aligned=True), int64)',)),
             ('rulebook._pair_kernels:_split',
              0.14,
              (),
              ("(bool, int64, int64, int64, int64, Array(int64, 2, 'C', False, aligned=True), "
               "Array(float64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
               'aligned=True), float64)',)),
             ('rulebook._pair_kernels:search_pair',
              0.94,
              ('rulebook._pair_kernels:_c_price',
               'rulebook._pair_kernels:_expressible',
               'rulebook._pair_kernels:_free_ratio',
               'rulebook._pair_kernels:_members_c',
               'rulebook._pair_kernels:_members_f',
               'rulebook._pair_kernels:_node_sums',
               'rulebook._pair_kernels:_solve_f',
               'rulebook._pair_kernels:_split'),
              ("(Array(float64, 3, 'C', False, aligned=True), Array(float64, 2, 'C', False, "
               'aligned=True), int64, int64, bool, bool, float64, float64, float64, Array(int64, '
               "2, 'C', False, aligned=True), Array(float64, 1, 'C', False, aligned=True), "
               "Array(int64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
               "aligned=True), Array(float64, 1, 'C', False, aligned=True), int64, Array(bool, 1, "
               "'C', False, aligned=True), Array(bool, 1, 'C', False, aligned=True), "
               "Array(float64, 2, 'C', False, aligned=True), Array(int64, 2, 'C', False, "
               "aligned=True), Array(float64, 2, 'C', False, aligned=True), Array(float64, 1, 'C', "
               "False, aligned=True), Array(int64, 1, 'C', False, aligned=True))",)),
             ('rulebook._search_kernels:filter_rows',
              0.08,
              ('rulebook._search_kernels:_bounds', 'rulebook._search_kernels:_inside'),
              ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
               "aligned=True), int64, int64, int64, int64, Array(int64, 1, 'C', False, "
               'aligned=True))',)),
             ('rulebook._search_kernels:_prefix_counts',
              0.04,
              (),
              ("(Array(int64, 2, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
               "aligned=True), Array(bool, 1, 'C', False, aligned=True), Array(int64, 2, 'C', "
               'False, aligned=True))',)),
             ('rulebook._search_kernels:_satisfying',
              0.05,
              (),
              ('(int64, int64, int64, int64, int64, int64)',)),
             ('rulebook._search_kernels:_implied_candidates',
              0.21,
              ('rulebook._search_kernels:_satisfying',),
              ("(Array(int64, 2, 'C', False, aligned=True), Array(int64, 2, 'C', False, "
               "aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, 'C', "
               "True, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, "
               "'C', False, aligned=True), Array(int64, 1, 'C', True, aligned=True), int64, "
               "Array(int64, 1, 'C', False, aligned=True))",)),
             ('rulebook._search_kernels:_satisfies', 0.05, (), ('(uint16, int64, int64, int64)',)),
             ('rulebook._search_kernels:_outside_rows',
              0.12,
              ('rulebook._search_kernels:_satisfies',),
              ("(Array(int64, 1, 'C', False, aligned=True), Array(bool, 1, 'C', False, "
               "aligned=True), Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', "
               "True, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, "
               "'C', True, aligned=True), Array(int64, 1, 'C', False, aligned=True), Array(int64, "
               "1, 'C', False, aligned=True), int64)",)),
             ('rulebook._search_kernels:_fewest_outside',
              0.22,
              ('rulebook._search_kernels:_satisfying',),
              ("(Array(int64, 1, 'C', False, aligned=True), int64, Array(int64, 2, 'C', False, "
               "aligned=True), Array(int64, 2, 'C', False, aligned=True), Array(int64, 1, 'C', "
               "True, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, "
               "'C', True, aligned=True), Array(int64, 1, 'C', False, aligned=True), int64)",)),
             ('rulebook._search_kernels:greedy_cover',
              0.72,
              ('rulebook._search_kernels:_fewest_outside',
               'rulebook._search_kernels:_implied_candidates',
               'rulebook._search_kernels:_outside_rows',
               'rulebook._search_kernels:_prefix_counts',
               'rulebook._search_kernels:filter_rows'),
              ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
               "aligned=True), Array(int64, 1, 'C', False, aligned=True), Array(bool, 1, 'C', "
               "False, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, "
               "'C', True, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, "
               "1, 'C', False, aligned=True), Array(int64, 1, 'C', True, aligned=True), int64, "
               "Array(int64, 2, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
               'aligned=True))',)),
             ('rulebook._search_kernels:redundant',
              0.15,
              ('rulebook._search_kernels:_satisfies',),
              ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
               "aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, 'C', "
               "True, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, "
               "'C', False, aligned=True), Array(int64, 1, 'C', False, aligned=True), int64, "
               "Array(bool, 1, 'C', False, aligned=True))",))),
 'orthogonal': (('rulebook._orthogonal_kernels:_orthogonal_value',
                 0.05,
                 (),
                 ('(float64, float64, float64, float64, float64)',)),
                ('rulebook.objectives:_objective',
                 0.05,
                 (),
                 ('(int64, float64, float64, float64, float64, float64)',)),
                ('rulebook._orthogonal_kernels:_value',
                 0.09,
                 ('rulebook._orthogonal_kernels:_orthogonal_value',
                  'rulebook.objectives:_objective'),
                 ("(int64, Array(float64, 1, 'C', False, aligned=True), float64, float64, float64, "
                  'float64)',)),
                ('rulebook._orthogonal_kernels:take_rows',
                 0.28,
                 (),
                 ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
                  "aligned=True), Array(uint16, 2, 'F', False, aligned=True))",)),
                ('rulebook._orthogonal_kernels:take_channel_rows',
                 0.43,
                 (),
                 ("(Array(float64, 2, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
                  "aligned=True), Array(float64, 2, 'C', False, aligned=True))",)),
                ('rulebook._orthogonal_kernels:distinct_rows',
                 0.34,
                 (),
                 ("(Array(int64, 2, 'C', False, aligned=True), int64, Array(int32, 1, 'C', False, "
                  "aligned=True), Array(int64, 1, 'C', False, aligned=True))",)),
                ('rulebook._orthogonal_bnb_kernels:_empty_table', 0.09, (), ('(int64,)',)),
                ('rulebook._orthogonal_bnb_kernels:_key',
                 0.04,
                 (),
                 ("(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
                  'aligned=True))',)),
                ('rulebook._orthogonal_bnb_kernels:_slot',
                 0.08,
                 (),
                 ("(Array(int64, 2, 'C', False, aligned=True), int64)",)),
                ('rulebook._orthogonal_bnb_kernels:_grown', 0.06, (), ('(int64, int64, int64)',)),
                ('rulebook._orthogonal_bnb_kernels:_grow_table',
                 0.13,
                 ('rulebook._orthogonal_bnb_kernels:_grown',),
                 ("(Array(int64, 2, 'C', False, aligned=True), int64, int64)",)),
                ('rulebook._orthogonal_bnb_kernels:_rehash',
                 0.11,
                 ('rulebook._orthogonal_bnb_kernels:_empty_table',
                  'rulebook._orthogonal_bnb_kernels:_slot'),
                 ("(Array(int64, 2, 'C', False, aligned=True),)",)),
                ('rulebook._orthogonal_bnb_kernels:_dominated',
                 0.21,
                 ('rulebook._orthogonal_bnb_kernels:_grow_table',
                  'rulebook._orthogonal_bnb_kernels:_rehash',
                  'rulebook._orthogonal_bnb_kernels:_slot'),
                 ("(Array(int64, 2, 'C', False, aligned=True), int64, Array(int64, 2, 'C', False, "
                  'aligned=True), int64, int64, int64, int64)',)),
                ('rulebook._orthogonal_bnb_kernels:_copy',
                 0.2,
                 (),
                 ("(Array(int64, 1, 'C', False, aligned=True), int64, Array(int64, 1, 'C', False, "
                  'aligned=True), int64)',
                  "(Array(float64, 1, 'C', False, aligned=True), int64, Array(float64, 1, 'C', "
                  'False, aligned=True), int64)')),
                ('rulebook._orthogonal_bnb_kernels:_snap',
                 0.03,
                 (),
                 ('(float64, int64, float64)',)),
                ('rulebook._orthogonal_bnb_kernels:_prefix_bound',
                 0.26,
                 ('rulebook._orthogonal_bnb_kernels:_snap',
                  'rulebook._orthogonal_kernels:_orthogonal_value'),
                 ("(Array(float64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
                  "aligned=True), Array(int32, 1, 'C', False, aligned=True), Array(float64, 2, "
                  "'C', False, aligned=True), Array(int64, 1, 'C', False, aligned=True), float64, "
                  'float64, int64, float64)',)),
                ('rulebook._orthogonal_bnb_kernels:_grow',
                 0.2,
                 ('rulebook._orthogonal_bnb_kernels:_copy',
                  'rulebook._orthogonal_bnb_kernels:_grown'),
                 ("(Array(float64, 1, 'C', False, aligned=True), int64, int64)",
                  "(Array(int64, 1, 'C', False, aligned=True), int64, int64)")),
                ('rulebook._orthogonal_bnb_kernels:_store_rows',
                 0.05,
                 (),
                 ("(Array(int64, 1, 'C', False, aligned=True), int64, Array(int64, 1, 'C', False, "
                  'aligned=True))',)),
                ('rulebook._orthogonal_bnb_kernels:_heap_less',
                 0.07,
                 (),
                 ("(Array(float64, 1, 'C', False, aligned=True), int64, int64)",)),
                ('rulebook._orthogonal_bnb_kernels:_heap_swap',
                 0.06,
                 (),
                 ("(Array(float64, 1, 'C', False, aligned=True), int64, int64)",)),
                ('rulebook._orthogonal_bnb_kernels:_heap_push',
                 0.06,
                 ('rulebook._orthogonal_bnb_kernels:_heap_less',
                  'rulebook._orthogonal_bnb_kernels:_heap_swap'),
                 ("(Array(float64, 1, 'C', False, aligned=True), int64, float64, float64, int64, "
                  'int64)',)),
                ('rulebook._orthogonal_bnb_kernels:_next_expansion_bytes',
                 0.06,
                 ('rulebook._orthogonal_bnb_kernels:_grown',),
                 ("(int64, int64, int64, int64, int64, int64, int64, Array(int64, 2, 'C', False, "
                  "aligned=True), Array(float64, 4, 'C', False, aligned=True), Array(int64, 2, "
                  "'C', False, aligned=True), Array(int64, 1, 'C', False, aligned=True), "
                  "Array(float64, 1, 'C', False, aligned=True), Array(int64, 2, 'C', False, "
                  "aligned=True), Array(int64, 2, 'C', False, aligned=True), int64)",)),
                ('rulebook._orthogonal_bnb_kernels:_heap_pop',
                 0.09,
                 ('rulebook._orthogonal_bnb_kernels:_heap_less',
                  'rulebook._orthogonal_bnb_kernels:_heap_swap'),
                 ("(Array(float64, 1, 'C', False, aligned=True), int64)",)),
                ('rulebook._search_kernels:_bounds', 0.02, (), ('(int64, int64, int64)',)),
                ('rulebook._search_kernels:_inside',
                 0.02,
                 (),
                 ('(uint16, int64, int64, int64, int64, int64)',)),
                ('rulebook._search_kernels:filter_rows',
                 0.16,
                 ('rulebook._search_kernels:_bounds', 'rulebook._search_kernels:_inside'),
                 ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
                  "aligned=True), int64, int64, int64, int64, Array(int64, 1, 'C', False, "
                  'aligned=True))',)),
                ('rulebook._orthogonal_bnb_kernels:_materialise_bits',
                 0.17,
                 ('rulebook._orthogonal_bnb_kernels:_grow_table',
                  'rulebook._orthogonal_bnb_kernels:_store_rows',
                  'rulebook._search_kernels:filter_rows'),
                 ("(int64, Array(int64, 2, 'C', False, aligned=True), Array(int64, 2, 'C', False, "
                  "aligned=True), Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', "
                  "False, aligned=True), Array(int64, 1, 'C', False, aligned=True), Array(int64, "
                  "1, 'C', False, aligned=True), Array(int64, 2, 'C', False, aligned=True), int64, "
                  'int64)',)),
                ('rulebook._orthogonal_bnb_kernels:_emit_rows',
                 0.09,
                 (),
                 ("(int64, int64, Array(int64, 1, 'C', False, aligned=True), int64)",)),
                ('rulebook._orthogonal_bnb_kernels:_load_rows',
                 0.06,
                 ('rulebook._orthogonal_bnb_kernels:_emit_rows',),
                 ("(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
                  'aligned=True))',)),
                ('rulebook._orthogonal_bnb_kernels:_grow_hists',
                 0.14,
                 ('rulebook._orthogonal_bnb_kernels:_grown',),
                 ("(Array(float64, 4, 'C', False, aligned=True), int64, int64)",)),
                ('rulebook._orthogonal_bnb_kernels:_load_difference',
                 0.06,
                 ('rulebook._orthogonal_bnb_kernels:_emit_rows',),
                 ("(Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
                  "aligned=True), Array(int64, 1, 'C', False, aligned=True))",)),
                ('rulebook._orthogonal_bnb_kernels:_copy_hist',
                 0.07,
                 (),
                 ("(Array(float64, 3, 'C', False, aligned=True), Array(float64, 3, 'C', False, "
                  'aligned=True))',)),
                ('rulebook._orthogonal_kernels:build_channel_histograms_serial',
                 0.32,
                 (),
                 ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
                  "aligned=True), Array(float64, 2, 'C', False, aligned=True), int64, "
                  "Array(float64, 3, 'C', False, aligned=True))",)),
                ('rulebook._orthogonal_bnb_kernels:_subtract',
                 0.09,
                 (),
                 ("(Array(float64, 3, 'C', False, aligned=True), Array(float64, 3, 'C', False, "
                  "aligned=True), int64, Array(float64, 3, 'C', False, aligned=True))",)),
                ('rulebook._orthogonal_kernels:scan_all_serial',
                 0.44,
                 ('rulebook._orthogonal_kernels:_value',),
                 ("(Array(float64, 3, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
                  "aligned=True), Array(bool, 1, 'C', False, aligned=True), int64, int64, float64, "
                  "float64, float64, float64, float64, Array(float64, 2, 'C', False, "
                  'aligned=True))',)),
                ('rulebook._orthogonal_bnb_kernels:_merge_sort_descending',
                 0.32,
                 (),
                 ("(Array(int64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
                  "aligned=True), int64, Array(int64, 1, 'C', False, aligned=True), Array(float64, "
                  "1, 'C', False, aligned=True))",)),
                ('rulebook._orthogonal_bnb_kernels:_refinement_order',
                 0.26,
                 ('rulebook._orthogonal_bnb_kernels:_merge_sort_descending',
                  'rulebook._orthogonal_bnb_kernels:_snap'),
                 ("(Array(float64, 2, 'C', False, aligned=True), int64, int64, int64, int64, "
                  "float64, Array(int64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', "
                  'False, aligned=True))',)),
                ('rulebook._orthogonal_bnb_kernels:_decode', 0.03, (), ('(int64, int64, bool)',)),
                ('rulebook._orthogonal_bnb_kernels:_next_pop_bytes',
                 0.05,
                 ('rulebook._orthogonal_bnb_kernels:_grown',),
                 ("(int64, int64, Array(int64, 2, 'C', False, aligned=True), Array(float64, 4, "
                  "'C', False, aligned=True), Array(int64, 2, 'C', False, aligned=True), "
                  "Array(int64, 1, 'C', False, aligned=True), Array(float64, 1, 'C', False, "
                  "aligned=True), Array(int64, 2, 'C', False, aligned=True), Array(int64, 2, 'C', "
                  'False, aligned=True))',)),
                ('rulebook._orthogonal_bnb_kernels:_conditions',
                 0.08,
                 (),
                 ("(Array(int64, 2, 'C', False, aligned=True), int64, int64, int64, int64, "
                  'int64)',)),
                ('rulebook._orthogonal_bnb_kernels:branch_and_bound',
                 3.01,
                 ('rulebook._orthogonal_bnb_kernels:_conditions',
                  'rulebook._orthogonal_bnb_kernels:_copy',
                  'rulebook._orthogonal_bnb_kernels:_copy_hist',
                  'rulebook._orthogonal_bnb_kernels:_decode',
                  'rulebook._orthogonal_bnb_kernels:_dominated',
                  'rulebook._orthogonal_bnb_kernels:_empty_table',
                  'rulebook._orthogonal_bnb_kernels:_grow',
                  'rulebook._orthogonal_bnb_kernels:_grow_hists',
                  'rulebook._orthogonal_bnb_kernels:_grow_table',
                  'rulebook._orthogonal_bnb_kernels:_heap_pop',
                  'rulebook._orthogonal_bnb_kernels:_heap_push',
                  'rulebook._orthogonal_bnb_kernels:_key',
                  'rulebook._orthogonal_bnb_kernels:_load_difference',
                  'rulebook._orthogonal_bnb_kernels:_load_rows',
                  'rulebook._orthogonal_bnb_kernels:_materialise_bits',
                  'rulebook._orthogonal_bnb_kernels:_next_expansion_bytes',
                  'rulebook._orthogonal_bnb_kernels:_next_pop_bytes',
                  'rulebook._orthogonal_bnb_kernels:_prefix_bound',
                  'rulebook._orthogonal_bnb_kernels:_refinement_order',
                  'rulebook._orthogonal_bnb_kernels:_store_rows',
                  'rulebook._orthogonal_bnb_kernels:_subtract',
                  'rulebook._orthogonal_kernels:build_channel_histograms_serial',
                  'rulebook._orthogonal_kernels:scan_all_serial',
                  'rulebook._search_kernels:filter_rows'),
                 ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
                  "aligned=True), Array(float64, 2, 'C', False, aligned=True), Array(float64, 1, "
                  "'C', False, aligned=True), Array(float64, 1, 'C', False, aligned=True), "
                  "Array(int32, 1, 'C', False, aligned=True), Array(float64, 2, 'C', False, "
                  "aligned=True), Array(int64, 1, 'C', False, aligned=True), Array(bool, 1, 'C', "
                  'False, aligned=True), int64, float64, float64, float64, float64, float64, '
                  "float64, bool, int64, int64, Array(int64, 1, 'C', False, aligned=True), "
                  "Array(int64, 1, 'C', False, aligned=True), int64, Array(float64, 3, 'C', False, "
                  "aligned=True), Array(int64, 2, 'C', False, aligned=True), Array(float64, 1, "
                  "'C', False, aligned=True), Array(float64, 1, 'C', False, aligned=True))",)),
                ('rulebook._orthogonal_kernels:permute_channel_rows',
                 0.45,
                 (),
                 ("(Array(float64, 2, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
                  'aligned=True))',)),
                ('rulebook._search_kernels:_prefix_counts',
                 0.06,
                 (),
                 ("(Array(int64, 2, 'C', False, aligned=True), Array(int64, 1, 'C', False, "
                  "aligned=True), Array(bool, 1, 'C', False, aligned=True), Array(int64, 2, 'C', "
                  'False, aligned=True))',)),
                ('rulebook._search_kernels:_satisfying',
                 0.05,
                 (),
                 ('(int64, int64, int64, int64, int64, int64)',)),
                ('rulebook._search_kernels:_implied_candidates',
                 0.29,
                 ('rulebook._search_kernels:_satisfying',),
                 ("(Array(int64, 2, 'C', False, aligned=True), Array(int64, 2, 'C', False, "
                  "aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, 'C', "
                  "True, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, "
                  "'C', False, aligned=True), Array(int64, 1, 'C', True, aligned=True), int64, "
                  "Array(int64, 1, 'C', False, aligned=True))",)),
                ('rulebook._search_kernels:_satisfies',
                 0.05,
                 (),
                 ('(uint16, int64, int64, int64)',)),
                ('rulebook._search_kernels:_outside_rows',
                 0.11,
                 ('rulebook._search_kernels:_satisfies',),
                 ("(Array(int64, 1, 'C', False, aligned=True), Array(bool, 1, 'C', False, "
                  "aligned=True), Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', "
                  "True, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, "
                  "'C', True, aligned=True), Array(int64, 1, 'C', False, aligned=True), "
                  "Array(int64, 1, 'C', False, aligned=True), int64)",)),
                ('rulebook._search_kernels:_fewest_outside',
                 0.08,
                 ('rulebook._search_kernels:_satisfying',),
                 ("(Array(int64, 1, 'C', False, aligned=True), int64, Array(int64, 2, 'C', False, "
                  "aligned=True), Array(int64, 2, 'C', False, aligned=True), Array(int64, 1, 'C', "
                  "True, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, "
                  "'C', True, aligned=True), Array(int64, 1, 'C', False, aligned=True), int64)",)),
                ('rulebook._search_kernels:greedy_cover',
                 0.77,
                 ('rulebook._search_kernels:_fewest_outside',
                  'rulebook._search_kernels:_implied_candidates',
                  'rulebook._search_kernels:_outside_rows',
                  'rulebook._search_kernels:_prefix_counts',
                  'rulebook._search_kernels:filter_rows'),
                 ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
                  "aligned=True), Array(int64, 1, 'C', False, aligned=True), Array(bool, 1, 'C', "
                  "False, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, "
                  "'C', True, aligned=True), Array(int64, 1, 'C', True, aligned=True), "
                  "Array(int64, 1, 'C', False, aligned=True), Array(int64, 1, 'C', True, "
                  "aligned=True), int64, Array(int64, 2, 'C', False, aligned=True), Array(int64, "
                  "1, 'C', False, aligned=True))",)),
                ('rulebook._search_kernels:redundant',
                 0.18,
                 ('rulebook._search_kernels:_satisfies',),
                 ("(Array(uint16, 2, 'F', False, aligned=True), Array(int64, 1, 'C', False, "
                  "aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, 'C', "
                  "True, aligned=True), Array(int64, 1, 'C', True, aligned=True), Array(int64, 1, "
                  "'C', False, aligned=True), Array(int64, 1, 'C', False, aligned=True), int64, "
                  "Array(bool, 1, 'C', False, aligned=True))",)))}
