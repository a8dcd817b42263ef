#!/bin/sh
# The README's main job: a scratch repository, and a first Run driven the
# way a host adapter drives it (typed next variants, Outcomes on stdin).
set -eu
bin=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
git init -q
git config user.email demo@example.com
git config user.name demo
echo 'hello' > hello.txt
git add hello.txt
git commit -qm 'first commit'

field() { python3 -c "import json,sys; d=json.load(sys.stdin); print(eval(sys.argv[1]))" "$1"; }
outcome() { # action_id kind status suggested implementation review
	printf '{"contract_version":2,"action_id":"%s","action_kind":"%s","status":"%s","summary":"%s done.","observations":[],"known_issues":[],"suggested_actions":%s,"pause":null,"implementation":%s,"review":%s}' \
		"$1" "$2" "$3" "$2" "$4" "$5" "$6"
}

echo '$ slipway run -- "Greet the world"'
"$bin" run -- "Greet the world"
state=$("$bin" status --json)
run=$(printf "%s" "$state" | field "d['runs'][0]['id']")
act=$(printf "%s" "$state" | field "d['runs'][0]['current_action']['action_id']")

echo; echo '# the host orients and suggests Implement'
res=$(outcome "$act" orient completed '[{"kind":"implement","brief":"Add a greeting line."}]' null null |
	"$bin" protocol submit --run "$run" --action "$act" --outcome-stdin)
act=$(printf "%s" "$res" | field "d['action']['action_id']")
echo "next Action: $(printf "%s" "$res" | field "d['action']['kind']")"

echo; echo '# the host implements; slipway sees the change itself and interposes Review'
echo 'hello, world' >> hello.txt
res=$(outcome "$act" implement completed '[]' \
	'{"result":"applied","files_changed":["hello.txt"],"activities":[{"kind":"test","command":"grep -q world hello.txt","exit_code":0,"summary":"greeting present"}],"uncertainties":[],"attempts":1}' null |
	"$bin" protocol submit --run "$run" --action "$act" --outcome-stdin)
act=$(printf "%s" "$res" | field "d['action']['action_id']")
echo "next Action: $(printf "%s" "$res" | field "d['action']['kind']")"

echo; echo '# Review reports no findings; Summarize ends the Run'
res=$(outcome "$act" review completed '[]' null '{"result":"no_findings_reported","findings":[],"uncertainties":[]}' |
	"$bin" protocol submit --run "$run" --action "$act" --outcome-stdin)
act=$(printf "%s" "$res" | field "d['action']['action_id']")
outcome "$act" summarize completed '[]' null null |
	"$bin" protocol submit --run "$run" --action "$act" --outcome-stdin >/dev/null

echo; echo "\$ slipway status $run"
"$bin" status "$run"
