"""scikit-learn's side of examples/gbr_diag.rs: GradientBoostingRegressor
on the bench's exported splits, as benches/sklearn_compare.py runs it (y,
exact splits) and with one of nfc's differences added at a time (ln y as
the target; the inputs cut into forust's 256 quantile bins), each variant
making the same choice (4 settings × the two feature sets, on the
validation fold). Prints validation and test accuracy per split and the
means.

Usage: /var/tmp/nfc-predictor-venv/bin/python gbr_diag_sklearn.py <manifest.json> [--bins]
(the two binned variants only with --bins: they double the run time).
"""
import json, sys

import numpy as np
from sklearn.ensemble import GradientBoostingRegressor

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/benches")
from sklearn_compare import load_split, metrics  # noqa: E402

GRID = [(3, 0.1), (5, 0.1), (3, 0.05), (5, 0.05)]


def binned(xtr, *others, nbins=256):
    """Every column replaced by the index of its quantile bin (cuts from the
    training fold), like a histogram booster sees it."""
    outs = [np.empty_like(xtr)] + [np.empty_like(o) for o in others]
    for c in range(xtr.shape[1]):
        u = np.unique(xtr[:, c])
        cuts = u if len(u) <= nbins else np.unique(np.quantile(xtr[:, c], np.linspace(0, 1, nbins + 1)))
        for o, src in zip(outs, (xtr,) + others):
            o[:, c] = np.searchsorted(cuts, src[:, c], side="right")
    return outs


def main():
    manifest = json.load(open(sys.argv[1]))
    variants = [("y, exact", False, False), ("ln y, exact", True, False)]
    if "--bins" in sys.argv:
        variants += [("y, 256 bins", False, True), ("ln y, 256 bins", True, True)]
    sums = {v[0]: [0.0, 0.0] for v in variants}
    for e in manifest:
        d = e["dir"]
        xtr, ytr, xva, yva, xte, yte = load_split(d)
        k = e.get("pearson_columns", xtr.shape[1])
        sets = [list(range(k))]
        if k < xtr.shape[1]:
            sets.append(list(range(xtr.shape[1])))
        print(f"{e['scenario']} / {e['split']}")
        for name, log, bins in variants:
            z = np.log(ytr) if log else ytr
            mu, sd = z.mean(), z.std()
            back = (lambda p: np.exp(p * sd + mu)) if log else (lambda p: p * sd + mu)
            a, b, c = binned(xtr, xva, xte) if bins else (xtr, xva, xte)
            top = None
            for cols in sets:
                for depth, lr in GRID:
                    g = GradientBoostingRegressor(n_estimators=300, max_depth=depth, learning_rate=lr,
                                                  random_state=2024)
                    g.fit(a[:, cols], (z - mu) / sd)
                    sv = metrics(back(g.predict(b[:, cols])), yva)["accuracy"]
                    if top is None or sv > top[0]:
                        st = metrics(back(g.predict(c[:, cols])), yte)["accuracy"]
                        top = (sv, st, f"d{depth} lr{lr} {len(cols)}f")
            sums[name][0] += top[0]
            sums[name][1] += top[1]
            print(f"   {name:<16} val {top[0]:.4f} test {top[1]:.4f} ({top[2]})", flush=True)
    for name, _, _ in variants:
        print(f"MEAN {name:<16} over {len(manifest)} splits: val {sums[name][0] / len(manifest):.4f} "
              f"test {sums[name][1] / len(manifest):.4f}")


if __name__ == "__main__":
    main()
