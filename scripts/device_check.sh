#!/usr/bin/env bash
# One command that proves minitorch_rx on a GPU: the device suite (tests/device) on CUDA, LeNet-5
# trained on the shipped MNIST subset with --device cuda (and on the CPU, for the
# accuracy bar), and `python -m bench.run --device cuda --quick`. No network needed.
#
#   bash scripts/device_check.sh            # from the repository root (or anywhere: it cd's there)
#
# Steps: a fresh venv (.device-venv) that sees the base interpreter's packages (torch), wheels from
# .whl/ if any (installed with --no-index), the project itself (editable, or on PYTHONPATH where
# that install cannot run offline). Everything goes to $OUT if set, else device_report/: the log
# (device_check.log), a markdown summary (device_report.md), the suite's junit XML
# (device_suite.xml), the bench table (bench.txt) and each training run's metrics_DEVICE.json.
# Without CUDA it runs the same steps on the CPU, says so, and exits 0 unless a step fails. Each
# step is guarded (a failure does not stop the rest); the exit status is non-zero only when a step
# failed. Python: $PYTHON, else /opt/torch/.venv/bin/python3 if present, else python3. The run
# keeps within DEVICE_CHECK_BUDGET_S (default 540 s): each step is capped by what is left of it.
# DEVICE_CHECK_STEPS (default "suite,train,bench") picks the checks to run, e.g. "bench" alone for
# timings on an otherwise idle GPU.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
OUT=${OUT:-$ROOT/device_report}
mkdir -p "$OUT"
LOG="$OUT/device_check.log"
REPORT="$OUT/device_report.md"
WORK=$(mktemp -d)  # scratch (runs, versions): $OUT holds at most 6 files, as the device tool brings back 8
trap 'rm -rf "$WORK"' EXIT
: >"$LOG"
exec > >(tee -a "$LOG") 2>&1
START=$(date +%s)
declare -a STEPS=()
FAILED=0

BUDGET=${DEVICE_CHECK_BUDGET_S:-540}  # the whole run, summary included (the device tool allows 600 s a command)
CHECKS=",${DEVICE_CHECK_STEPS:-suite,train,bench},"
wants() { [[ $CHECKS == *",$1,"* ]]; }  # wants CHECK: is CHECK among DEVICE_CHECK_STEPS

step() {  # step NAME TIMEOUT_S COMMAND...: run guarded, record status and seconds
    # COMMAND may be one of the functions below (exported: timeout runs it in a child bash). A step
    # gets at most what is left of $BUDGET, less 15 s for the summary; none left: it is skipped.
    local name=$1 limit=$2
    shift 2
    local left=$((START + BUDGET - 15 - $(date +%s)))
    [ "$left" -lt "$limit" ] && limit=$left
    if [ "$limit" -le 0 ]; then
        echo "=== $name: SKIPPED (the ${BUDGET} s budget is spent)"
        STEPS+=("| $name | SKIPPED (out of time) | 0 s |")
        FAILED=1
        return 1
    fi
    echo
    echo "=== $name ($(date -u +%H:%M:%S) UTC, limit ${limit}s)"
    local began=$(date +%s)
    timeout --kill-after=10 "$limit" bash -c '"$@"' step "$@"
    local rc=$?
    local took=$(($(date +%s) - began))
    local status="ok"
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
        status="TIMEOUT"
    elif [ $rc -ne 0 ]; then
        status="FAILED (exit $rc)"
    fi
    [ "$status" != "ok" ] && FAILED=1
    STEPS+=("| $name | $status | ${took} s |")
    echo "=== $name: $status in ${took} s"
    return $rc
}

# ------------------------------------------------------------------ interpreter and venv
BASE_PY=${PYTHON:-}
if [ -z "$BASE_PY" ]; then
    if [ -x /opt/torch/.venv/bin/python3 ]; then BASE_PY=/opt/torch/.venv/bin/python3; else BASE_PY=python3; fi
fi
echo "device_check: base interpreter $BASE_PY, report folder $OUT"
VENV="$ROOT/.device-venv"
make_venv() {
    rm -rf "$VENV"
    # without pip where the interpreter has no ensurepip: the parent's pip (seen below) installs
    "$BASE_PY" -m venv --system-site-packages "$VENV" \
        || { rm -rf "$VENV" && "$BASE_PY" -m venv --system-site-packages --without-pip "$VENV"; } || return 1
    # A venv made from another venv's python sees only the *base* installation's packages: point
    # the new one at the interpreter's own site-packages (where torch is) with a .pth file.
    local parent_sites new_site
    parent_sites=$("$BASE_PY" -c 'import site, sys; print("\n".join(site.getsitepackages()))') || return 1
    new_site=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') || return 1
    echo "$parent_sites" >"$new_site/_device_check_parent.pth"
    "$VENV/bin/python" -c 'import torch; print("torch", torch.__version__, "from", torch.__file__)'
}
install_project() {  # install_project PYTHON: the .whl/ wheels, then the project (editable)
    local py=$1 wheel
    if compgen -G "$ROOT/.whl/*.whl" >/dev/null; then
        if ! "$py" -m pip install --no-index --no-deps --quiet "$ROOT"/.whl/*.whl; then
            # no pip here: a wheel is a zip of its install tree; unpacked on PYTHONPATH, it imports
            echo "device_check: pip could not install .whl/; unpacking the wheels into $WORK/site"
            for wheel in "$ROOT"/.whl/*.whl; do "$py" -m zipfile -e "$wheel" "$WORK/site" || return 1; done
        fi
    fi
    if ! "$py" -m pip install --no-index --no-deps --no-build-isolation --quiet -e "$ROOT" >"$WORK/pip.log" 2>&1; then
        echo "device_check: editable install not possible offline here (its setuptools); the project runs from PYTHONPATH=$ROOT"
    fi
}
export ROOT OUT VENV BASE_PY WORK
export -f make_venv install_project
export PYTHONPATH="$ROOT:$WORK/site${PYTHONPATH:+:$PYTHONPATH}"  # $WORK/site: wheels pip could not install
if step "venv (--system-site-packages)" 60 make_venv; then
    PY="$VENV/bin/python"
else
    echo "device_check: no venv; running with $BASE_PY itself"
    PY="$BASE_PY"
fi
step "install (.whl/ wheels, project)" 60 install_project "$PY"
export PY VENV
"$PY" -c 'import rustworkx, minitorch_rx; print("minitorch_rx from", minitorch_rx.__file__, "| rustworkx", rustworkx.__version__)' \
    || echo "device_check: minitorch_rx or rustworkx does not import: the steps below will fail (put a rustworkx wheel in .whl/)"

# ------------------------------------------------------------------ machine
echo
echo "=== machine"
(command -v nvidia-smi >/dev/null && nvidia-smi) || echo "nvidia-smi: not found (no NVIDIA driver)"
"$PY" - <<'EOF' | tee "$WORK/versions.txt"
import platform, torch
print(f"python {platform.python_version()}, torch {torch.__version__}, CUDA (torch built with) {torch.version.cuda}, "
      f"cuDNN {torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None}")
print(f"CPU: {platform.processor() or platform.machine()}, capability {torch.backends.cpu.get_cpu_capability()}, "
      f"{torch.get_num_threads()} threads")
if torch.cuda.is_available():
    for i in range(torch.cuda.device_count()):
        p = torch.cuda.get_device_properties(i)
        print(f"cuda:{i}: {p.name}, {p.total_memory / 2**30:.1f} GiB, capability {p.major}.{p.minor}")
else:
    print("CUDA: not available to torch")
EOF
if "$PY" -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null; then
    DEVICE=cuda
else
    DEVICE=cpu
    echo "device_check: NO CUDA on this machine: running the device suite, training and bench on the CPU"
fi
echo "device_check: device $DEVICE"

# ------------------------------------------------------------------ the device suite
wants suite && step "device suite (tests/device, MTRX_TEST_DEVICE=$DEVICE)" 240 \
    env MTRX_TEST_DEVICE=$DEVICE "$PY" -m pytest tests/device -q -p no:cacheprovider -rfEs \
    --junitxml="$OUT/device_suite.xml" --durations=10

# ------------------------------------------------------------------ LeNet-5
# The accuracy bar compares whole runs of the recipe (8 epochs, cosine to 0): after one epoch the
# accuracy is a coin toss. Rounding (cuDNN's against the CPU's kernels, or the CPU's two conv
# backends) parts two runs' step losses after about 25 steps, and from there a run is as different
# as another seed: one epoch gave 84.7-93.5% over seeds 0-4 on the CPU, 8 epochs 97.5-97.7%.
LENET_EPOCHS=${LENET_EPOCHS:-8}
train() {  # train DEVICE [OPTION...]: LeNet-5 on the shipped subset; prints "accuracy DEVICE xx.xx%"
    local device=$1 run="$WORK/lenet5_$1"
    shift
    rm -rf "$run"
    "$PY" -m minitorch_rx train --model lenet5 --epochs "$LENET_EPOCHS" --device "$device" --out "$run" --quiet "$@" \
        || return 1
    cp "$run/metrics.json" "$OUT/metrics_$device.json"
    "$PY" - "$run/metrics.json" "$device" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
print(f"accuracy {sys.argv[2]} {100 * m['test_accuracy'][-1]:.2f}% "
      f"({m['images_per_second'][-1]:.0f} train images/s)")
EOF
}
export -f train
export LENET_EPOCHS
if ! wants train; then
    :
elif [ "$DEVICE" = cuda ]; then
    step "train LeNet-5 $LENET_EPOCHS epochs --device cuda" 90 train cuda
    step "train LeNet-5 $LENET_EPOCHS epochs --device cpu (the accuracy bar: within 0.5 points)" 150 \
        train cpu --threads "$(( $(nproc) < 8 ? $(nproc) : 8 ))"
else  # a CPU-only machine checks that the command runs: 2,000 training and 2,000 test images
    LENET_EPOCHS=1 step "train LeNet-5 1 epoch --device cpu --limit 2000" 120 train cpu --limit 2000
fi
if [ "$DEVICE" = cuda ] && wants train; then
    accuracy_bar() {  # the same accuracy on the GPU as on the CPU, within 0.5 points
        "$PY" - "$OUT/metrics_cuda.json" "$OUT/metrics_cpu.json" <<'EOF'
import json, sys
runs = [json.load(open(path)) for path in sys.argv[1:]]
gpu, cpu = (100 * run["test_accuracy"][-1] for run in runs)
print(f"accuracy bar: cuda {gpu:.2f}% vs cpu {cpu:.2f}%: {gpu - cpu:+.2f} points (bar: within 0.5)")
steps = list(zip(*(run["step_losses"] for run in runs)))
apart = [i for i, (g, c) in enumerate(steps) if abs(g - c) > 1e-3 * abs(c)]
print(f"step losses: first step cuda {steps[0][0]:.6f} cpu {steps[0][1]:.6f}; "
      f"first step more than 0.1% apart: {apart[0] if apart else None} of {len(steps)}")
sys.exit(0 if abs(gpu - cpu) <= 0.5 else 1)
EOF
    }
    export -f accuracy_bar
    step "LeNet-5 accuracy, cuda against cpu (bar 0.5 points)" 30 accuracy_bar
fi

# ------------------------------------------------------------------ bench
wants bench && step "bench.run --device $DEVICE --quick" 150 \
    bash -o pipefail -c "'$PY' -m bench.run --device $DEVICE --quick --skip memory,accuracy,ddp | tee '$OUT/bench.txt'"

# ------------------------------------------------------------------ summary
ELAPSED=$(($(date +%s) - START))
{
    echo "# minitorch_rx device check ($(date -u '+%Y-%m-%d %H:%M UTC'))"
    echo
    echo "Device: **$DEVICE**$([ "$DEVICE" = cpu ] && echo ' (no CUDA on this machine: the CPU ran every step)')"
    echo
    echo '```'
    cat "$WORK/versions.txt" 2>/dev/null
    echo '```'
    echo
    echo "| step | status | time |"
    echo "|---|---|---|"
    printf '%s\n' "${STEPS[@]}"
    echo
    echo "Device suite (MTRX_TEST_DEVICE=$DEVICE): $("$PY" - "$OUT/device_suite.xml" 2>/dev/null <<'EOF'
import sys
import xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot()
suite = suite if suite.tag == "testsuite" else suite[0]
tests, failed, errors, skipped = (int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped"))
print(f"{tests - failed - errors - skipped} passed, {failed} failed, {errors} errors, {skipped} skipped "
      f"in {float(suite.get('time', 0)):.0f} s")
EOF
)"
    echo
    echo "LeNet-5 on the shipped MNIST subset:"
    grep -h '^accuracy' "$LOG" | sed 's/^/- /'
    echo
    echo "Device suite failures (if any):"
    echo
    echo '```'
    grep -E '^(FAILED|ERROR) ' "$LOG" | head -n 40
    echo '```'
    echo
    if [ -s "$OUT/bench.txt" ]; then
        echo "Bench (\`python -m bench.run --device $DEVICE --quick\`):"
        echo
        echo '```'
        sed -n '/^minitorch_rx against/,$p' "$OUT/bench.txt"
        echo '```'
    fi
    echo
    echo "Total: ${ELAPSED} s; exit status $FAILED."
} >"$REPORT"
echo
cat "$REPORT"
exit $FAILED
