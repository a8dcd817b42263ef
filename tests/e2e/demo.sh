#!/bin/sh
# The README's main job: a scratch repository and a first look at slipway.
set -eu
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
git -C "$dir" init -q
"$bin" --version
