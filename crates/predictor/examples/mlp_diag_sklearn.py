"""scikit-learn's MLPRegressor on the bench's exported splits, as
benches/sklearn_compare.py runs it (inputs and y standardised), and with
nfc's MLP transforms added one at a time (ln y as the target; ln(1 + x)
inputs), each variant making the same choice (the script's grid × the two
feature sets, on the validation fold). For the splits where nfc's MLP
loses to scikit-learn's: does a transform explain it?

Usage: /var/tmp/nfc-predictor-venv/bin/python mlp_diag_sklearn.py <manifest.json> [split-dir-name…]
"""
import json, sys, warnings

import numpy as np
from sklearn.compose import TransformedTargetRegressor
from sklearn.exceptions import ConvergenceWarning
from sklearn.neural_network import MLPRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/benches")
from sklearn_compare import MLP_GRID, load_split, metrics  # noqa: E402

warnings.filterwarnings("ignore", category=ConvergenceWarning)


def main():
    manifest = json.load(open(sys.argv[1]))
    want = set(sys.argv[2:])
    for e in manifest:
        name = e["dir"].rstrip("/").rsplit("/", 1)[1]
        if want and name not in want:
            continue
        d = e["dir"]
        xtr, ytr, xva, yva, xte, yte = load_split(d)
        k = e.get("pearson_columns", xtr.shape[1])
        sets = [list(range(k))] + ([list(range(xtr.shape[1]))] if k < xtr.shape[1] else [])
        print(name, flush=True)
        for label, logy, logx in [("y, raw x", False, False), ("ln y, raw x", True, False),
                                  ("y, ln(1+x)", False, True), ("ln y, ln(1+x)", True, True)]:
            tx = (lambda a: np.sign(a) * np.log1p(np.abs(a))) if logx else (lambda a: a)
            top = None
            for cols in sets:
                for hidden, act, lr in MLP_GRID:
                    reg = MLPRegressor(hidden_layer_sizes=hidden, activation=act, learning_rate_init=lr,
                                       alpha=1e-4, batch_size=32, max_iter=100, random_state=2024)
                    m = TransformedTargetRegressor(regressor=make_pipeline(StandardScaler(), reg),
                                                   transformer=StandardScaler())
                    m.fit(tx(xtr[:, cols]), np.log(ytr) if logy else ytr)
                    back = np.exp if logy else (lambda a: a)
                    sv = metrics(back(m.predict(tx(xva[:, cols]))), yva)["accuracy"]
                    if top is None or sv > top[0]:
                        top = (sv, metrics(back(m.predict(tx(xte[:, cols]))), yte)["accuracy"])
            print(f"   {label:<14} val {top[0]:.4f} test {top[1]:.4f}", flush=True)


if __name__ == "__main__":
    main()
