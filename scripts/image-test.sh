#!/usr/bin/env bash
# Builds the container image and proves it works: starts it with a data volume and a published
# port, signs in as the first admin, runs the demo project's Bash task in the sandbox, restarts the
# container and finds the project and task again. Uses Podman (no daemon) with the flags this kind
# of machine needs (runc, cgroupfs, ulimits); prints "image test skipped: <reason>" when it cannot run.
# Usage: scripts/image-test.sh   (env: IMAGE_TEST_PORT, default 3300; IMAGE_TEST_KEEP=1 keeps the image)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
port="${IMAGE_TEST_PORT:-3300}"
id="gantry-image-test-$$"
image="localhost/gantry:image-test"
base="docker.io/library/node:22-bookworm-slim"
admin_password="image-test-$RANDOM-$RANDOM"
PODMAN=(podman --runtime runc --cgroup-manager=cgroupfs)
ULIMITS=(--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
# What bubblewrap needs to sandbox tasks as the non-root user gantry: a fresh /proc can only be
# mounted where the container's /proc has no masked paths over it; slirp4netns (the task's own
# network) needs the tun device. The default is docker-compose.yml's (systempaths=unconfined);
# Podman's narrower `--security-opt unmask=/proc/*` works too. IMAGE_TEST_SANDBOX_FLAGS overrides.
read -r -a SANDBOX_FLAGS <<<"${IMAGE_TEST_SANDBOX_FLAGS:---security-opt systempaths=unconfined --device /dev/net/tun}"


skip() { echo "image test skipped: $1"; exit 0; }
fail() {
  echo "image test FAILED: $1" >&2
  if "${PODMAN[@]}" container exists "$id" 2>/dev/null; then
    echo "--- last container log lines ---" >&2
    "${PODMAN[@]}" logs --tail 40 "$id" >&2 || true
  fi
  exit 1
}
cleanup() {
  "${PODMAN[@]}" rm -f -t 5 "$id" >/dev/null 2>&1 || true
  "${PODMAN[@]}" volume rm -f "$id-data" >/dev/null 2>&1 || true
  [[ "${IMAGE_TEST_KEEP:-}" == 1 ]] || "${PODMAN[@]}" rmi -f "$image" >/dev/null 2>&1 || true
  # Untagged layers of earlier builds are the next build's cache; a day old, they only fill the disk.
  "${PODMAN[@]}" image prune -f --filter until=24h >/dev/null 2>&1 || true
  rm -rf "$tmp"
}

command -v podman >/dev/null || skip "podman is not installed"
command -v curl >/dev/null || skip "curl is not installed"
"${PODMAN[@]}" info >/dev/null 2>&1 || skip "podman cannot run here ($("${PODMAN[@]}" info 2>&1 | tail -1))"

tmp="$(mktemp -d)"
trap cleanup EXIT
# Stopped from outside (npm test's time budget): still remove the container and its volume.
trap 'exit 143' TERM INT
jar="$tmp/cookies"
t0=$SECONDS

# --- base image (local stand-in when no registry is reachable) ---
if ! "${PODMAN[@]}" image exists "$base"; then
  "$root/scripts/image-base.sh" || skip "no $base image and the local stand-in could not be built"
fi
t_base=$((SECONDS - t0))

# --- build ---
t1=$SECONDS
# A TLS-inspecting proxy's CA bundle (as the host's npm trusts it) reaches `npm ci` as a build secret only.
ca="${IMAGE_BUILD_CA:-${NODE_EXTRA_CA_CERTS:-}}"
build_secret=()
[[ -n "$ca" && -r "$ca" ]] && build_secret=(--secret "id=ca,src=$ca")
"${PODMAN[@]}" build --format docker --network host "${ULIMITS[@]}" "${build_secret[@]}" -t "$image" -f "$root/Dockerfile" "$root" >"$tmp/build.log" 2>&1 || {
  tail -40 "$tmp/build.log" >&2
  fail "podman build"
}
t_build=$((SECONDS - t1))
echo "build: ok ($t_build s)"

# --- run ---
t2=$SECONDS
api() { # api METHOD PATH [JSON]: answers the body; fails on a non-2xx status
  local method="$1" path="$2" body="${3:-}" out status
  local args=(-sS -o "$tmp/body" -w '%{http_code}' -b "$jar" -c "$jar" -X "$method" -H 'x-gantry-request: 1')
  [[ -n "$body" ]] && args+=(-H 'content-type: application/json' --data "$body")
  status="$(curl "${args[@]}" "http://127.0.0.1:$port/api$path")" || fail "$method $path: no answer"
  out="$(cat "$tmp/body")"
  [[ "$status" == 2* ]] || fail "$method $path: HTTP $status $out"
  printf '%s' "$out"
}
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=new Function("d","return "+process.argv[1])(JSON.parse(s));console.log(v??"")})' "$1"; }
wait_healthy() {
  for _ in $(seq 1 90); do
    curl -fsS "http://127.0.0.1:$port/api/health" >/dev/null 2>&1 && return 0
    "${PODMAN[@]}" container inspect -f '{{.State.Running}}' "$id" 2>/dev/null | grep -q true || fail "the container stopped"
    sleep 1
  done
  fail "/api/health did not answer within 90 s"
}
sign_in() {
  rm -f "$jar"
  api POST /auth/login "{\"auth\":\"admin\",\"password\":\"$admin_password\"}" >/dev/null
}

"${PODMAN[@]}" volume create "$id-data" >/dev/null
# No systemd here for podman's healthcheck timers: the HEALTHCHECK is run once at the end instead.
"${PODMAN[@]}" run -d --name "$id" "${ULIMITS[@]}" --health-interval disable "${SANDBOX_FLAGS[@]}" \
  -p "127.0.0.1:$port:3000" -v "$id-data:/var/lib/gantry/data" \
  -e GANTRY_ADMIN=admin -e GANTRY_ADMIN_PASSWORD="$admin_password" "$image" >/dev/null 2>"$tmp/run.err" || {
  cat "$tmp/run.err" >&2
  fail "podman run"
}
wait_healthy
echo "start: healthy after $((SECONDS - t2)) s"
sign_in
echo "sign-in: ok"

sandbox="$(api GET /sandbox)"
echo "sandbox: $(printf '%s' "$sandbox" | json 'd.mode + ": " + d.detail + "; task network: " + d.probe?.network')"
[[ "$(printf '%s' "$sandbox" | json 'd.mode')" == bwrap ]] || fail "tasks are not sandboxed in the container: $sandbox"
[[ "$(printf '%s' "$sandbox" | json 'd.probe?.network')" == isolated ]] || fail "tasks lack their own isolated network: $sandbox"

name="Image test $$"
project="$(api POST /projects "{\"name\":\"$name\",\"demo\":true}" | json 'd.id')"
template="$(api GET "/project/$project/templates" | json 'd.find(t=>t.app==="bash").id')"
[[ -n "$template" ]] || fail "the demo project has no Bash template"
task="$(api POST "/project/$project/tasks" "{\"template_id\":$template}" | json 'd.id')"
status=""
for _ in $(seq 1 90); do
  status="$(api GET "/project/$project/tasks/$task" | json 'd.status')"
  [[ "$status" =~ ^(success|error|stopped)$ ]] && break
  sleep 1
done
output="$(api GET "/project/$project/tasks/$task/raw_output")"
[[ "$status" == success ]] || fail "task $task ended as '$status': $output"
grep -q 'Hello from Gantry' <<<"$output" || fail "task output lacks the greeting: $output"
grep -q 'greeting: from the demo' <<<"$output" || fail "task output lacks the environment's variable: $output"
echo "task: success ($(grep -m1 'Hello from Gantry' <<<"$output"))"

# --- restart: data must survive in the volume ---
"${PODMAN[@]}" restart -t 10 "$id" >/dev/null 2>"$tmp/run.err" || fail "podman restart: $(cat "$tmp/run.err")"
wait_healthy
sign_in
api GET /projects | json "d.some(p=>p.id===$project&&p.name===\"$name\")" | grep -q true || fail "project gone after restart"
[[ "$(api GET "/project/$project/tasks/$task" | json 'd.status')" == success ]] || fail "task gone after restart"
echo "restart: project and task still there"

health="$("${PODMAN[@]}" healthcheck run "$id" 2>&1)" || fail "HEALTHCHECK failed: $health"
echo "healthcheck: ok"
t_run=$((SECONDS - t2))
echo "image test passed: base $t_base s, build $t_build s, run $t_run s, total $((SECONDS - t0)) s"
