"""Worker RSS over time during a distributed fit, with phase marks."""
import sys, time, threading, json
sys.path.insert(0, "/work/main/benchmarks")
import bench_dask as B

def start_sampler(dask_worker=None):
    import threading, time
    samples = []
    def loop():
        t0 = time.perf_counter()
        while True:
            try:
                mem = [ts for ts in list(dask_worker.state.tasks.values()) if ts.state == "memory"]
                from dask.utils import key_split
                from collections import Counter
                held = (len(mem), sum((ts.nbytes or 0) for ts in mem) / 2**20, len(dask_worker.state.tasks),
                        dict(Counter(key_split(ts.key) for ts in mem)), dict(Counter(ts.state for ts in list(dask_worker.state.tasks.values()))))
            except Exception as e:
                held = (0, 0, 0)
            samples.append((time.time(), B._status("VmRSS") / 2**20, held))
            time.sleep(0.05)
    threading.Thread(target=loop, daemon=True).start()
    import builtins
    builtins._rss_samples = samples

def get_samples(dask_worker=None):
    import builtins
    return builtins._rss_samples

def logs(dask_worker=None):
    import gc, collections, sys
    gc.collect()
    counts = collections.Counter(type(o).__name__ for o in gc.get_objects())
    import numpy as np
    arrays = [o for o in gc.get_objects() if isinstance(o, np.ndarray)]
    return {"gc_objects": sum(counts.values()), "top": counts.most_common(8),
            "ndarray_mb": round(sum(a.nbytes for a in arrays if a.base is None) / 2**20, 1),
            "pymalloc": sys._debugmallocstats.__name__}

def main(rows, prow, task="classification"):
    import logging
    from distributed import Client, LocalCluster
    import rulebook.dask as rdask
    from rulebook.dask import _estimators, _partitions
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                           silence_logs=logging.ERROR, env=dict({"NUMBA_NUM_THREADS": "1"}, **json.loads(__import__("os").environ.get("WENV", "{}"))))
    client = Client(cluster)
    est = rdask.RuleBoostingClassifier
    est(n_rules=2, verbose=0).fit(*B.lazy_table(5000, 20, task, 2500, seed=1))
    marks = {}
    orig = _estimators.fit_boosting
    def marked(setup, *a):
        marks["boost"] = time.time()
        held = client.gather(setup.workers.run(_partitions.held_bytes))
        marks["held"] = [float(v[0]) / 2**20 for v in held]
        return orig(setup, *a)
    _estimators.fit_boosting = marked
    X, y = B.lazy_table(rows, 20, task, prow)
    print("logs_before", client.run(logs))
    client.run(start_sampler)
    time.sleep(0.5)
    t0 = time.time()
    model = est(n_rules=10, verbose=0).fit(X, y)
    t1 = time.time()
    time.sleep(0.3)
    samples = client.run(get_samples)
    def trim(dask_worker=None):
        import ctypes, gc
        gc.collect()
        before = B._status("VmRSS") / 2**20
        ctypes.CDLL("libc.so.6").malloc_trim(0)
        return round(before), round(B._status("VmRSS") / 2**20), len(dask_worker.state.tasks), len(dask_worker.data)
    print("trim", client.run(trim))
    def _unused(dask_worker=None):
        import gc, collections
        out = {}
        for owner, name in [(dask_worker, n) for n in dir(dask_worker)] + [(dask_worker.state, n) for n in dir(dask_worker.state)]:
            try:
                v = getattr(owner, name)
            except Exception:
                continue
            if isinstance(v, (collections.deque, list, dict, set)) and len(v) > 50:
                out[type(owner).__name__ + "." + name] = len(v)
        out["gc_objects"] = len(gc.get_objects())
        return out
    print("logs", client.run(logs))
    def pym(dask_worker=None):
        import sys, io, os
        r, w = os.pipe()
        import contextlib
        # _debugmallocstats writes to stderr (fd 2)
        saved = os.dup(2); os.dup2(w, 2)
        sys._debugmallocstats()
        os.dup2(saved, 2); os.close(w)
        text = os.read(r, 1 << 20).decode(); os.close(r)
        return [l for l in text.splitlines() if "arenas" in l or "Total" in l][:8]
    print("pym", client.run(pym))
    out = {"rows": rows, "prow": prow, "parts": X.npartitions, "fit": t1 - t0, "bin": marks["boost"] - t0, "held": marks["held"]}
    for w, s in samples.items():
        base = [r for t, r, h in s if t < t0]
        binning = [r for t, r, h in s if t0 <= t < marks["boost"]]
        rounds = [r for t, r, h in s if marks["boost"] <= t <= t1]
        out[w[-5:]] = dict(base=round(base[-1]), bin_peak=round(max(binning)), round_peak=round(max(rounds)),
                           end=round(rounds[-1]))
        # summary of trajectory in binning: 10 quantile points in time
        idx = [int(i * (len(binning) - 1) / 9) for i in range(10)]
        out[w[-5:]]["bin_traj"] = [round(binning[i]) for i in idx]
        hb = [h for t, r, h in s if t0 <= t < marks["boost"]]
        out[w[-5:]]["held_traj"] = [(hb[i][0], round(hb[i][1]), hb[i][2]) for i in idx]
        out[w[-5:]]["mid"] = hb[len(hb)//3][3:]
        hr = [h for t, r, h in s if marks["boost"] <= t <= t1]
        out[w[-5:]]["round_held_max"] = max(hr, key=lambda h: h[1])
        ir = [int(i * (len(hr) - 1) / 9) for i in range(10)]
        out[w[-5:]]["round_traj"] = [round([r for t, r, h in s if marks["boost"] <= t <= t1][i]) for i in ir]
    print(json.dumps(out))
    client.close(); cluster.close()

if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
