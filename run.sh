#!/usr/bin/env bash
# Simhound: set everything up and run something. Idempotent; run as root on
# Debian 12 (it installs Debian packages), or as a user once they are installed.
#
#   ./run.sh          build, make the demo corpus and a sample article, and
#                     check it (the app on a display, the CLI without one)
#   ./run.sh test     build, then run every test (also under ASan/UBSan)
#   ./run.sh eval     quality on ../shared/eval-public and ../shared/eval-pan13-train
#                     (when present)
#   ./run.sh bench    benchmarks (tests/bench/RESULTS.md has the latest figures)
set -euo pipefail
cd "$(dirname "$0")"
top=$PWD

BUILD_PACKAGES=(build-essential meson ninja-build pkg-config gettext python3
  libglib2.0-dev libjson-glib-dev libsqlite3-dev libxxhash-dev libzstd-dev liburing-dev libopencc-dev opencc libicu-dev libcmocka-dev
  libcairo2-dev libpango1.0-dev fonts-noto-cjk poppler-utils
  libpoppler-glib-dev libxml2-dev libarchive-dev libcmark-gfm-dev libcmark-gfm-extensions-dev
  libgtk-4-dev libadwaita-1-dev xvfb xauth locales desktop-file-utils appstream
  libpq-dev postgresql-15 libsecret-1-dev gnome-keyring dbus-daemon)
DEMO_PACKAGES=(debian-reference-en debian-reference-zh-cn fortunes-zh bible-kjv bible-kjv-text)

say() { printf '\033[1m== %s\033[0m\n' "$*" >&2; }

install_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages: ${missing[*]} (run as root, or: sudo apt-get install ${missing[*]})" >&2
    exit 2
  fi
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

zh_locale() {  # the UI test and screenshots need a real zh_CN locale for LANGUAGE
  locale -a 2>/dev/null | grep -qi '^zh_CN.utf8$' && return 0
  [ "$(id -u)" -eq 0 ] || return 0
  sed -i 's/^# *zh_CN.UTF-8 UTF-8/zh_CN.UTF-8 UTF-8/' /etc/locale.gen
  grep -q '^zh_CN.UTF-8 UTF-8' /etc/locale.gen || echo 'zh_CN.UTF-8 UTF-8' >> /etc/locale.gen
  locale-gen >/dev/null
}

build() {  # build DIR [meson options...]
  local dir=$1; shift
  if [ ! -f "$dir/build.ninja" ]; then
    meson setup "$dir" "$@" >/dev/null
  fi
  ninja -C "$dir" >/dev/null
}

demo() {
  install_packages "${DEMO_PACKAGES[@]}"
  local texts=build/demo/texts store=build/demo/demo.db
  if [ ! -d "$texts" ]; then
    say "extracting the demo corpus from Debian packages"
    python3 corpus/extract-debian-texts.py "$texts.tmp" && mv "$texts.tmp" "$texts"
  fi
  say "indexing the demo corpus into $store"
  build/app/simhound-cli --store "$store" corpus add "$texts"
  python3 corpus/make-sample.py "$texts" build/demo/sample-article.txt
}

count_results() {  # prints "N passed, N failed" for the meson test logs given
  python3 - "$@" <<'PY'
import json, sys
passed = failed = 0
for log in sys.argv[1:]:
    for line in open(log):
        r = json.loads(line)
        if r["result"] in ("OK", "EXPECTEDFAIL", "SKIP"):
            passed += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
}

case "${1:-run}" in
  run)
    install_packages "${BUILD_PACKAGES[@]}"
    build build
    demo
    if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x build/app/simhound ]; then
      say "opening the sample article in Simhound on the demo corpus (press Check)"
      GSETTINGS_SCHEMA_DIR=$top/build/resources \
        exec build/app/simhound --store build/demo/demo.db build/demo/sample-article.txt
    fi
    say "no display: checking build/demo/sample-article.txt against the demo corpus with the CLI"
    build/app/simhound-cli --store build/demo/demo.db check build/demo/sample-article.txt
    ;;
  test)
    install_packages "${BUILD_PACKAGES[@]}"
    zh_locale
    build build
    build build-asan -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false -Dgui=false
    status=0
    say "tests"
    meson test -C build --print-errorlogs || status=1
    say "tests under AddressSanitizer and UndefinedBehaviorSanitizer"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
      LSAN_OPTIONS=suppressions=$top/tests/lsan.supp:print_suppressions=0 \
      meson test -C build-asan --suite core --suite cli --suite server --print-errorlogs --timeout-multiplier 3 || status=1
    count_results build/meson-logs/testlog.json build-asan/meson-logs/testlog.json || status=1
    exit $status
    ;;
  eval)
    install_packages "${BUILD_PACKAGES[@]}"
    build build
    python3 tests/bench/eval.py --cli build/app/simhound-cli --out build/eval "${@:2}"
    python3 tests/bench/eval.py --cli build/app/simhound-cli --eval ../shared/eval-pan13-train \
      --out build/eval-pan "${@:2}"
    # Text alignment alone: compare on every PAN pair (issue 30 scores both).
    python3 tests/bench/pan-compare.py --cli build/app/simhound-cli --out build/eval-pan-compare
    ;;
  bench)
    install_packages "${BUILD_PACKAGES[@]}" "${DEMO_PACKAGES[@]}"
    build build
    [ -d build/demo/texts ] || demo
    [ -f build/demo/essay-5000.txt ] || python3 corpus/make-sample.py build/demo/texts build/demo/essay-5000.txt 5000
    build/tests/bench/simhound-bench "${@:2}"
    if [ -x build/tests/bench/simhound-ui-bench ]; then
      GSETTINGS_BACKEND=memory GSETTINGS_SCHEMA_DIR=$top/build/resources GSK_RENDERER=cairo \
        xvfb-run -a build/tests/bench/simhound-ui-bench ../shared/corpora build/demo/demo.db build/demo/essay-5000.txt 2>/dev/null
    fi
    ;;
  *)
    sed -n '2,10p' "$0" >&2
    exit 1
    ;;
esac
