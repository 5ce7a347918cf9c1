#!/usr/bin/python3
"""The reference ringside's ranking is measured against: the Chatbot Arena
notebook's Bradley-Terry fit with scikit-learn, and its bootstrap.

compute_mle_elo and get_bootstrap_result are the notebook's functions
(lmsys "Chatbot Arena: MLE Elo" notebook, as in FastChat's
fastchat/serve/monitor/elo_analysis.py before the pivot-table rewrite): every
battle appears twice in a dense design matrix so that a tie counts as one win
for each side, LogisticRegression(fit_intercept=False, penalty=None,
tol=1e-6) fits it, and each bootstrap round refits on
battles.sample(frac=1.0, replace=True). Only the anchor (mixtral = 1114) is
left out, so that ratings have mean 1000 like ringside's.

It times reading the file with pandas, the fit on all battles, and the
first --rounds bootstrap rounds, and extrapolates 100 and 1,000 rounds from
the mean round (each round is the same work on a resample of the same
size). With --compare it reads `ringside rank --format json` output and
prints the largest difference between the two sets of ratings.

    /usr/bin/python3 scripts/bench_rank_sklearn.py FILE [--rounds N] [--seed S] [--compare ringside.json]

Needs numpy, pandas and scikit-learn (Debian: python3-sklearn python3-pandas).
"""

import argparse
import json
import math
import sys
import time

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression


def compute_mle_elo(df, SCALE=400, BASE=10, INIT_RATING=1000):
    models = pd.concat([df["model_a"], df["model_b"]]).unique()
    models = pd.Series(np.arange(len(models)), index=models)

    # duplicate battles
    df = pd.concat([df, df], ignore_index=True)
    p = len(models.index)
    n = df.shape[0]

    X = np.zeros([n, p])
    X[np.arange(n), models[df["model_a"]]] = +math.log(BASE)
    X[np.arange(n), models[df["model_b"]]] = -math.log(BASE)

    # one A win => two A win
    Y = np.zeros(n)
    Y[df["winner"] == "model_a"] = 1.0

    # one tie => one A win + one B win
    # find tie + tie (both bad) index
    tie_idx = (df["winner"] == "tie") | (df["winner"] == "tie (bothbad)")
    tie_idx[len(tie_idx) // 2:] = False
    Y[tie_idx] = 1.0

    lr = LogisticRegression(fit_intercept=False, penalty=None, tol=1e-6)
    lr.fit(X, Y)

    elo_scores = SCALE * lr.coef_[0] + INIT_RATING
    return pd.Series(elo_scores, index=models.index).sort_values(ascending=False)


def get_bootstrap_result(battles, func_compute_elo, num_round, seed):
    rows = []
    times = []
    for i in range(num_round):
        t = time.perf_counter()
        rows.append(func_compute_elo(battles.sample(frac=1.0, replace=True, random_state=seed + i)))
        times.append(time.perf_counter() - t)
        print(f"round {i + 1}/{num_round}: {times[-1]:.2f} s", file=sys.stderr, flush=True)
    df = pd.DataFrame(rows)
    return df[df.median().sort_values(ascending=False).index], times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--rounds", type=int, default=3, help="bootstrap rounds to run (the rest is extrapolated)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compare", help="ringside rank --format json output to compare ratings with")
    args = ap.parse_args()

    t0 = time.perf_counter()
    battles = pd.read_json(args.file, lines=True)
    t_read = time.perf_counter() - t0

    t = time.perf_counter()
    ratings = compute_mle_elo(battles)
    t_fit = time.perf_counter() - t

    times = []
    if args.rounds > 0:
        _, times = get_bootstrap_result(battles, compute_mle_elo, args.rounds, args.seed)
    per_round = sum(times) / len(times) if times else float("nan")
    out = {
        "battles": int(len(battles)),
        "models": int(len(ratings)),
        "read_s": round(t_read, 3),
        "fit_s": round(t_fit, 3),
        "rounds_measured": len(times),
        "round_s": [round(x, 3) for x in times],
        "round_mean_s": round(per_round, 3),
        "total_0_s": round(t_read + t_fit, 3),
        "total_100_s_extrapolated": round(t_read + t_fit + 100 * per_round, 1),
        "total_1000_s_extrapolated": round(t_read + t_fit + 1000 * per_round, 1),
    }
    if args.compare:
        with open(args.compare) as f:
            lb = json.load(f)
        ours = {m["model"]: m["rating"] for m in lb["models"]}
        diffs = [abs(ours[m] - r) for m, r in ratings.items() if m in ours]
        out["compared_models"] = len(diffs)
        out["max_rating_difference"] = round(max(diffs), 6) if diffs else None
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
