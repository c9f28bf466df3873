#!/usr/bin/env bash
# Runs `pwk lint` for the GitHub Action (../action.yml), from its inputs in the
# environment (never spliced into a shell string):
#
#   run.sh plan       whether the SARIF upload can succeed: writes `upload=true|false`
#                     to GITHUB_OUTPUT. Only when asked (PWK_UPLOAD_SARIF=true), and
#                     never for a pull request from a fork (its token cannot write
#                     to code scanning): then a notice says the annotations are the
#                     findings. Exits 0 (2 for a value that is not true or false).
#   run.sh sarif      writes PWK_SARIF (a SARIF file for code scanning); exits 0 when
#                     pwk ran (findings or not), 2 when it could not do its job
#   run.sh annotate   `--format github` (annotations on the pull request); exits with
#                     pwk's status: 0 clean, 1 findings, 2 pwk could not do its job
#
#   PWK_UPLOAD_SARIF  `true` or `false` (the action's upload-sarif input)
#   PWK_EVENT         the event's name (github.event_name)
#   PWK_REPO          the repository the workflow runs in (github.repository)
#   PWK_HEAD_REPO     a pull request's head repository (…pull_request.head.repo.full_name)
#
#   PWK_PATHS     files or directories, separated by white space (default: pwk's own,
#                 .agents/agents/ and .pi/agents/)
#   PWK_HOST      --host (default: pwk's, auto)
#   PWK_BASELINE  --baseline FILE: report only findings not in it
#   PWK_ARGS      more arguments for `pwk lint`, separated by white space
#   PWK_BIN       the pwk to run (default: pwk on PATH)
set -euo pipefail
# (`${a[@]+"${a[@]}"}` below: an empty array under `set -u` in the bash 3.2 of macOS.)

mode=${1:?usage: run.sh plan|sarif|annotate}
pwk=${PWK_BIN:-pwk}

args=(lint --color never)
if [ -n "${PWK_HOST:-}" ]; then args+=(--host "$PWK_HOST"); fi
if [ -n "${PWK_BASELINE:-}" ]; then args+=(--baseline "$PWK_BASELINE"); fi
read -r -a extra <<<"${PWK_ARGS:-}" || true
read -r -a paths <<<"$(printf '%s' "${PWK_PATHS:-}" | tr '\n' ' ')" || true

case "$mode" in
  plan)
    upload=false
    case "${PWK_UPLOAD_SARIF:-false}" in
      false) ;;
      true)
        upload=true
        case "${PWK_EVENT:-}" in
          pull_request | pull_request_target | pull_request_review | pull_request_review_comment)
            if [ "${PWK_HEAD_REPO:-}" != "${PWK_REPO:-}" ]; then
              upload=false
              echo "::notice title=pwk::SARIF upload skipped: a pull request from a fork (${PWK_HEAD_REPO:-unknown}) cannot write to code scanning; the annotations are the findings"
            fi
            ;;
        esac
        ;;
      *)
        echo "::error title=pwk::upload-sarif must be true or false, not '$PWK_UPLOAD_SARIF'" >&2
        exit 2
        ;;
    esac
    echo "pwk: SARIF upload: $upload"
    if [ -n "${GITHUB_OUTPUT:-}" ]; then echo "upload=$upload" >>"$GITHUB_OUTPUT"; fi
    ;;
  sarif)
    out=${PWK_SARIF:?PWK_SARIF must name the SARIF file to write}
    set +e
    "$pwk" "${args[@]}" --format sarif ${extra[@]+"${extra[@]}"} -- ${paths[@]+"${paths[@]}"} >"$out"
    rc=$?
    set -e
    if [ "$rc" -gt 1 ]; then
      echo "pwk lint could not do its job (exit $rc); no SARIF file" >&2
      exit "$rc"
    fi
    echo "pwk: SARIF written to $out"
    ;;
  annotate)
    exec "$pwk" "${args[@]}" --format github ${extra[@]+"${extra[@]}"} -- ${paths[@]+"${paths[@]}"}
    ;;
  *)
    echo "usage: run.sh plan|sarif|annotate" >&2
    exit 2
    ;;
esac
