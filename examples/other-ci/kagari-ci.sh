#!/bin/sh
# kagari on any other CI (Jenkins, Buildkite, CircleCI, Drone, a cron job):
# name the base with KAGARI_BASE_REF (or --against) and keep the reports.
# The clone must hold the base commit: fetch the full history or the base.
set -eu
: "${KAGARI_BASE_REF:=origin/main}"   # e.g. Jenkins: origin/$CHANGE_TARGET
export KAGARI_BASE_REF
git fetch --no-tags origin "+refs/heads/*:refs/remotes/origin/*"
status=0
kagari ci --format json --output kagari-result.json kagari.yaml || status=$?
# JUnit for the CI's test view (Jenkins: junit 'kagari-junit.xml'),
# HTML for people, BMF for a Bencher server (bencher run --file ... --adapter json).
kagari report kagari-result.json --format junit --output kagari-junit.xml || true
kagari report kagari-result.json --format html --output kagari-report.html || true
kagari report kagari-result.json --format bmf --output kagari-bmf.json || true
exit "$status"
