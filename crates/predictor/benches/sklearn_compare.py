"""scikit-learn on the predictor bench's exported splits (the same rows and
the same Pearson-selected features nfc's models used), for comparison.

Usage: python sklearn_compare.py <manifest.json> <seed>; prints JSON.
Per split: StandardScaler fitted on train (inputs and target), then
MLPRegressor and GradientBoostingRegressor, each with a small grid scored
on the validation fold only, over the same feature sets nfc's models choose
between (the Pearson selection: the first `pearson_columns` columns; and
every exported non-constant counter when `unfiltered`); metrics on the test
fold.
"""
import csv, itertools, json, sys, warnings

import numpy as np
import sklearn
from sklearn.compose import TransformedTargetRegressor
from sklearn.ensemble import GradientBoostingRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

warnings.filterwarnings("ignore", category=ConvergenceWarning)


def load(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    data = np.array([[float(v) for v in r] for r in rows[1:]], dtype=float)
    return data[:, :-1], data[:, -1]


def load_split(d):
    """The train, validation and test folds of one exported split; a split
    without a validation fold chooses on its training fold."""
    xtr, ytr = load(f"{d}/train.csv")
    xva, yva = load(f"{d}/validation.csv")
    xte, yte = load(f"{d}/test.csv")
    if len(yva) == 0:
        xva, yva = xtr, ytr
    return xtr, ytr, xva, yva, xte, yte


def metrics(p, y):
    rel = np.abs(p - y) / np.abs(y)
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    return {
        "accuracy": float(1 - rel.mean()),
        "mape": float(100 * rel.mean()),
        "r2": float(1 - np.sum((y - p) ** 2) / ss_tot) if ss_tot > 0 else None,
        "within_5": float(np.mean(rel <= 0.05)),
        "within_10": float(np.mean(rel <= 0.10)),
        "n": int(len(y)),
    }


MLP_GRID = list(itertools.product([(64,), (64, 64)], ["relu", "tanh"], [1e-3]))
GBR_GRID = list(itertools.product([3, 5], [0.1, 0.05]))


def best(make, grid, sets, xtr, ytr, xva, yva):
    """The best (model, columns) over the grid and the feature sets, by
    validation accuracy."""
    top = None
    for cols in sets:
        for params in grid:
            m = make(*params)
            m.fit(xtr[:, cols], ytr)
            s = metrics(m.predict(xva[:, cols]), yva)["accuracy"] if len(yva) else 0.0
            if top is None or s > top[0]:
                top = (s, m, cols)
    return top[1], top[2]


def main():
    manifest = json.load(open(sys.argv[1]))
    seed = int(sys.argv[2])
    results = []
    for entry in manifest:
        d = entry["dir"]
        xtr, ytr, xva, yva, xte, yte = load_split(d)

        def mlp(hidden, act, lr):
            reg = MLPRegressor(hidden_layer_sizes=hidden, activation=act, learning_rate_init=lr,
                               alpha=1e-4, batch_size=32, max_iter=100, random_state=seed)
            return TransformedTargetRegressor(regressor=make_pipeline(StandardScaler(), reg),
                                              transformer=StandardScaler())

        def gbr(depth, lr):
            return make_pipeline(StandardScaler(), GradientBoostingRegressor(
                n_estimators=300, max_depth=depth, learning_rate=lr, random_state=seed))

        # The Pearson selection (the first columns) and, when nfc's models
        # were offered it too, every non-constant counter.
        k = entry.get("pearson_columns", xtr.shape[1])
        sets = [list(range(k))]
        if entry.get("unfiltered") and k < xtr.shape[1]:
            sets.append(list(range(xtr.shape[1])))
        m, mc = best(mlp, MLP_GRID, sets, xtr, ytr, xva, yva)
        g, gc = best(gbr, GBR_GRID, sets, xtr, ytr, xva, yva)
        results.append({"scenario": entry["scenario"], "split": entry["split"],
                        "mlp": metrics(m.predict(xte[:, mc]), yte), "gbr": metrics(g.predict(xte[:, gc]), yte),
                        "mlp_features": len(mc), "gbr_features": len(gc)})
    print(json.dumps({"version": sklearn.__version__, "mlp_grid": len(MLP_GRID),
                      "gbr_grid": len(GBR_GRID), "results": results}))


if __name__ == "__main__":
    main()
