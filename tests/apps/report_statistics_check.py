"""Recomputes what `mnrl report` wrote, with numpy, from the run directories it read.

usage: report_statistics_check.py REPORT_DIR RUN_DIR... (each RUN_DIR as LABEL=PATH)
Exits 1 naming the first disagreement. The aggregates must agree to rounding. The bootstrap
intervals come from another generator: each end must lie within one percentile point of where
numpy's bootstrap distribution puts it (its 1.5th to 3.5th percentile for the 2.5th), which
allows for the few values a bootstrap of a few runs takes.
"""
import csv
import sys

import numpy as np


def iqm(x):
    # scipy.stats.trim_mean(x, 0.25), as rliable computes the IQM
    x = np.sort(np.asarray(x, dtype=float))
    cut = int(0.25 * len(x))
    return x[cut:len(x) - cut].mean()


def final_return(run_dir):
    lines = open(run_dir + "/summary.yaml").read().splitlines()
    at = lines.index("final_evaluation:")
    for line in lines[at + 1:]:
        if line.strip().startswith("mean_return:"):
            return float(line.split(":")[1])
    raise ValueError(run_dir)


def evaluations(run_dir):
    rows = csv.DictReader(open(run_dir + "/metrics.csv"))
    return {int(r["step"]): float(r["value"]) for r in rows if r["name"] == "eval/mean_return"}


def bootstrap(stat, x, rng, resamples=20000):
    x = np.asarray(x, dtype=float)
    picks = rng.integers(0, len(x), size=(resamples, len(x)))
    return np.array([stat(x[p]) for p in picks])


def improvement(x, y):
    x = np.asarray(x)[:, None]
    y = np.asarray(y)[None, :]
    return ((x > y) + 0.5 * (x == y)).mean()


def improvement_bootstrap(x, y, rng, resamples=20000):
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    return np.array([improvement(x[rng.integers(0, len(x), len(x))],
                                 y[rng.integers(0, len(y), len(y))]) for _ in range(resamples)])


def check(what, got, want, tolerance):
    if abs(float(got) - float(want)) > tolerance:
        sys.exit(f"{what}: the report says {got}, numpy {want} (tolerance {tolerance})")


def check_interval(what, row, low_key, high_key, estimates):
    for key, percent in ((low_key, 2.5), (high_key, 97.5)):
        got = float(row[key])
        lowest, highest = np.percentile(estimates, [percent - 1, percent + 1])
        rounding = 1e-5 * max(1.0, abs(got))  # the report writes 6 significant digits
        if not lowest - rounding <= got <= highest + rounding:
            sys.exit(f"{what} {key}: the report says {got}, numpy's bootstrap puts the "
                     f"{percent}th percentile within [{lowest}, {highest}]")


def main():
    report, inputs = sys.argv[1], sys.argv[2:]
    rng = np.random.default_rng(12345)
    configs = {}
    for given in inputs:
        label, path = given.split("=", 1)
        configs.setdefault(label, []).append(path)
    scores = {label: [final_return(d) for d in dirs] for label, dirs in configs.items()}
    rows = {r["config"]: r for r in csv.DictReader(open(report + "/scores.csv"))}
    for label, x in scores.items():
        row = rows[label]
        check(label + " IQM", row["iqm"], iqm(x), 1e-4 * max(1.0, abs(iqm(x))))
        check(label + " mean", row["mean"], np.mean(x), 1e-4 * max(1.0, abs(np.mean(x))))
        check_interval(label + " IQM", row, "iqm_ci_low", "iqm_ci_high", bootstrap(iqm, x, rng))
        check_interval(label + " mean", row, "mean_ci_low", "mean_ci_high",
                       bootstrap(np.mean, x, rng))
    curves = list(csv.DictReader(open(report + "/curves.csv")))
    for label, dirs in configs.items():
        runs = [evaluations(d) for d in dirs]
        steps = sorted(set.intersection(*(set(r) for r in runs)))
        rows = [r for r in curves if r["config"] == label]
        if [int(r["step"]) for r in rows] != steps:
            sys.exit(f"{label}: curves.csv has steps {[r['step'] for r in rows]}, the runs {steps}")
        for row, step in zip(rows, steps):
            want = iqm([r[step] for r in runs])
            check(f"{label} IQM at step {step}", row["iqm"], want, 1e-4 * max(1.0, abs(want)))
    labels = list(configs)
    pairs = list(csv.DictReader(open(report + "/improvement.csv")))
    if len(pairs) != len(labels) * (len(labels) - 1) // 2:
        sys.exit(f"improvement.csv has {len(pairs)} pairs for {len(labels)} configs")
    for row in pairs:
        x, y = scores[row["x"]], scores[row["y"]]
        check(f"P({row['x']} > {row['y']})", row["probability_x_improves_on_y"],
              improvement(x, y), 1e-4)
        check_interval(f"P({row['x']} > {row['y']})", row, "ci_low", "ci_high",
                       improvement_bootstrap(x, y, rng))
    print("the report agrees with numpy on", len(labels), "configs and", len(pairs), "pairs")


main()
