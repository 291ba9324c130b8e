#!/usr/bin/env bash
# One entry point for the README's two commands: install what is missing, build, then
#   demo  - run the lab's demonstration
#   test  - run the whole test suite (plain build, the package, every fuzz target for 10 s with
#           clang, then the suite under ASan + UBSan)
#   fuzz  - run every libFuzzer target for longer (tools/lab.sh fuzz [SECONDS], default 60)
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake g++ make pkg-config git libgtest-dev libboost-dev nlohmann-json3-dev
          libcpp-httplib-dev libcli11-dev libsqlite3-dev qt6-base-dev qt6-charts-dev libqt6opengl6-dev
          fonts-dejavu-core python3 python3-jsonschema dpkg-dev)
JOBS=${JOBS:-2}

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

build() {  # build DIR [cmake options...]: every target, or those in $TARGETS
  local dir=$1
  shift
  cmake -S . -B "$dir" "$@" >/dev/null
  if [ -n "${TARGETS:-}" ]; then
    # shellcheck disable=SC2086 # a list of target names
    cmake --build "$dir" -j"$JOBS" --target $TARGETS
  else
    cmake --build "$dir" -j"$JOBS"
  fi
}

# Builds every libFuzzer target with clang (-Werror: clang warns where GCC does not) and runs each
# for $1 seconds from its seed corpus; inputs it finds go to build-fuzz/corpus, crashes to
# build-fuzz/findings. Fails when the build fails or a target finds something.
fuzz_all() {
  local seconds=$1 failed=0 exe target
  CC=clang-14 CXX=clang++-14 build build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPACING_FUZZ=ON \
    -DPACING_SANITIZE=ON -DPACING_WITH_QT=OFF -DPACING_TESTS=OFF -DPACING_BENCH=OFF \
    -DPACING_WERROR=ON
  mkdir -p build-fuzz/findings
  for exe in build-fuzz/*_fuzz; do  # every target CMake's FUZZ_TARGETS built
    target=$(basename "$exe" _fuzz)
    mkdir -p "build-fuzz/corpus/$target"
    echo "== fuzz $target for ${seconds} s"
    if ! ASAN_OPTIONS=detect_leaks=1 "$exe" "build-fuzz/corpus/$target" \
        "tests/fuzz/corpus/$target" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 \
        -artifact_prefix="build-fuzz/findings/$target-" -print_final_stats=1 \
        > "build-fuzz/$target.log" 2>&1; then
      echo "   FOUND something: build-fuzz/$target.log, build-fuzz/findings/$target-*"
      failed=1
    fi
    grep -E "stat::number_of_executed_units|cov:" "build-fuzz/$target.log" | tail -2 || true
  done
  return $failed
}

# The Debian package of build/: built with cpack, installed with apt on this machine (its
# dependencies from Debian), used from /usr, then removed again.
package() {
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  rm -f build/pacing-lab_*.deb
  (cd build && cpack -G DEB >/dev/null)
  local deb
  deb=$(ls build/pacing-lab_*.deb)
  echo "== $deb: install, use, remove"
  dpkg-deb --field "$deb" Depends
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "./$deb" >/dev/null
  local status=0
  {
    /usr/bin/pacing-lab --version &&
      /usr/bin/pacing-lab-gui --version &&
      /usr/bin/pacing-lab validate /usr/share/pacing-lab/scenarios/*.json >/dev/null &&
      /usr/bin/pacing-lab check /usr/share/pacing-lab/scenarios/kgf-burst.json &&
      test -f /usr/lib/cmake/pacing/pacingConfig.cmake &&
      pkg-config --exists pacing-asio
  } || status=1
  DEBIAN_FRONTEND=noninteractive $sudo apt-get remove -y -qq pacing-lab >/dev/null
  [ $status -eq 0 ] || { echo "the installed package failed" >&2; return 1; }
}

case "${1:-}" in
  package)
    install_missing
    build build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPACING_TESTS=ON -DPACING_BENCH=ON
    package
    ;;
  demo)
    install_missing
    # Only what the demo runs (the command line; the GUI and the tests are built by `test`).
    TARGETS=pacing-lab build build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPACING_TESTS=OFF \
      -DPACING_BENCH=OFF
    for scenario in kgf-burst timeout-contamination qlever-no-retry-after; do
      ./build/pacing-lab compare "scenarios/$scenario.json"
    done
    ;;
  test)
    PACKAGES+=(clang-14 libclang-rt-14-dev curl python3-requests)
    # The machine's own Node.js and npm where it has them (npm then installs Node 22), else Debian's.
    command -v npm >/dev/null || PACKAGES+=(npm)
    install_missing
    echo "== the real clients of examples/clients: Node 22 and Comunica 5.4 from npm, pinned"
    (cd examples/clients && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    echo "== build and test (warnings are errors)"
    build build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPACING_WERROR=ON -DPACING_TESTS=ON -DPACING_BENCH=ON
    ctest --test-dir build --output-on-failure -j"$JOBS"
    echo "== the Debian package"
    package
    echo "== the fuzz targets, built by clang with libFuzzer, each run for ${FUZZ_SECONDS:-10} s"
    fuzz_all "${FUZZ_SECONDS:-10}"
    echo "== build and test under AddressSanitizer + UndefinedBehaviorSanitizer"
    # -O1: the sanitizers' checks are all there, and the suite runs several times faster than at -O0.
    build build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-g -O1" -DPACING_WERROR=ON \
      -DPACING_SANITIZE=ON -DPACING_BENCH=OFF
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
      ctest --test-dir build-asan --output-on-failure -j"$JOBS"
    ;;
  fuzz)
    # tools/lab.sh fuzz [SECONDS]: every libFuzzer target for SECONDS (default 60) from its seed
    # corpus; inputs it finds go to build-fuzz/corpus, crashes to build-fuzz/findings (exit 1).
    PACKAGES+=(clang-14 libclang-rt-14-dev)
    install_missing
    fuzz_all "${2:-60}"
    ;;
  *)
    echo "usage: tools/lab.sh demo|test|package|fuzz [SECONDS]" >&2
    exit 2
    ;;
esac
