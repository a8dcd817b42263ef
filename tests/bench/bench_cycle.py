"""Full mutation cycle benchmark (not a test): `make bench`.

For synthetic repositories of about 20, 5,000 and 50,000 tracked files (a
few dirty and untracked files each, made by tests/bench/mkrepo.sh), it times
side by side, in one run:

  git floor  the six git commands the reference runs per mutation
             (rev-parse toplevel / git-dir / git-common-dir, rev-parse HEAD,
             ls-files --stage -z, status --porcelain=v2 -z -uall);
  submit     one whole `slipway protocol submit` process: discovery, lock,
             journal replay, Git observation, routing, journal append with
             fsync, projection replace, output;

and prints their ratio.  It then grows one Run to 1,000 Actions and prints
the submit time at 1, 100 and 1,000 Actions, to show load + append stay
flat.  Usage: bench_cycle.py SLIPWAY_BIN REPO..."""

import json
import os
import statistics
import subprocess
import sys
import time

GIT_FLOOR = [
    ["git", "rev-parse", "--path-format=absolute", "--show-toplevel"],
    ["git", "rev-parse", "--path-format=absolute", "--git-dir"],
    ["git", "rev-parse", "--path-format=absolute", "--git-common-dir"],
    ["git", "rev-parse", "--verify", "--quiet", "HEAD"],
    ["git", "ls-files", "--stage", "-z"],
    ["git", "status", "--porcelain=v2", "-z", "--untracked-files=all"],
]
ROUNDS = 9


def git_floor(repo):
    start = time.perf_counter()
    for cmd in GIT_FLOOR:
        subprocess.run(cmd, cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=dict(os.environ, GIT_OPTIONAL_LOCKS="0"))
    return time.perf_counter() - start


def outcome(action_id, kind):
    return json.dumps({
        "contract_version": 2, "action_id": action_id, "action_kind": kind,
        "status": "completed", "summary": "benchmark step", "observations": [],
        "known_issues": [], "suggested_actions": [{"kind": "clarify", "brief": "Next step."}],
        "pause": None, "implementation": None, "review": None}).encode()


class Run:
    def __init__(self, binary, repo, budget):
        self.bin, self.repo = binary, repo
        out = subprocess.run([binary, "run", "--json", "--no-review", "--budget", str(budget),
                              "--root", repo, "--", "benchmark"],
                             capture_output=True, check=True).stdout
        doc = json.loads(out)
        self.run_id, self.action = doc["run_id"], doc["action"]
        self.actions = 1

    def submit(self):
        payload = outcome(self.action["action_id"], self.action["kind"])
        start = time.perf_counter()
        res = subprocess.run([self.bin, "protocol", "submit", "--run", self.run_id,
                              "--action", self.action["action_id"], "--root", self.repo,
                              "--outcome-stdin"], input=payload, capture_output=True)
        took = time.perf_counter() - start
        if res.returncode != 0:
            sys.exit("submit failed: %s" % res.stderr.decode())
        self.action = json.loads(res.stdout)["action"]
        self.actions += 1
        return took


def ms(x):
    return "%8.2f ms" % (x * 1000)


def main():
    binary, repos = sys.argv[1], sys.argv[2:]
    print("Full mutation cycle: one `slipway protocol submit` process vs the git floor")
    print("%-42s %12s %12s %8s" % ("repository", "git floor", "submit", "ratio"))
    for repo in repos:
        run = Run(binary, repo, 1000)
        floors, cycles = [], []
        for _ in range(ROUNDS):  # interleaved, so load drifts hit both sides
            floors.append(git_floor(repo))
            cycles.append(run.submit())
        f, c = statistics.median(floors), statistics.median(cycles)
        print("%-42s %12s %12s %7.2fx" % (os.path.basename(repo), ms(f), ms(c), c / f))
    repo = repos[0]
    print("\nLoad + append as a Run grows (%s, median of %d submits)" % (os.path.basename(repo), ROUNDS))
    run = Run(binary, repo, 1000)
    marks = {}
    for target in (1, 100, 1000 - ROUNDS):
        while run.actions < target:
            run.submit()
        marks[target] = statistics.median(run.submit() for _ in range(ROUNDS))
    base = marks[1]
    for target, t in marks.items():
        print("%6d Actions %12s %7.2fx" % (target, ms(t), t / base))


if __name__ == "__main__":
    main()
