#!/usr/bin/env bash
# The README's test command (Quick start, command 2), and what .ci/run runs: installs the system tools the tests
# need where it can (root with apt-get), runs `mvn -B verify` with any arguments given here, and ends with one
# summary of every skipped test and why (read from the surefire reports this run wrote).
#
# Without root or apt-get nothing is installed: the tests that need a missing tool skip, each naming it, and the
# summary lists them. REQUIRE_TOOLS=1 (as .ci/run sets) makes a failed install fatal instead, so CI never passes
# with those tests skipped.
set -uo pipefail
cd "$(dirname "$0")/.."

# iproute2's `ip`: the two-host tests build network namespaces (TwoHostSocketTest, NetworkNamespaceTest).
# slurm-wlm: RealSlurmTest starts slurmctld and two slurmd daemons and runs srun.
missing=()
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
command -v slurmctld >/dev/null 2>&1 || [ -x /usr/sbin/slurmctld ] || missing+=(slurm-wlm)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "scripts/test.sh: installing ${missing[*]} (apt-get) for the tests that need them"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; }; then
      echo "scripts/test.sh: could not install ${missing[*]}; the tests that need them will skip" >&2
      [ "${REQUIRE_TOOLS:-0}" = 1 ] && { echo "scripts/test.sh: REQUIRE_TOOLS=1, stopping" >&2; exit 1; }
    fi
  else
    echo "scripts/test.sh: ${missing[*]} missing and not root with apt-get: the tests that need them will skip"
    [ "${REQUIRE_TOOLS:-0}" = 1 ] && { echo "scripts/test.sh: REQUIRE_TOOLS=1, stopping" >&2; exit 1; }
  fi
fi

# Reports older than this run (a module that did not run this time) must not enter the summary.
marker=$(mktemp)
trap 'rm -f "$marker"' EXIT
mvn -B verify "$@"
status=$?
java scripts/SkippedTests.java "$marker" . || echo "scripts/test.sh: could not read the test reports" >&2
exit $status
