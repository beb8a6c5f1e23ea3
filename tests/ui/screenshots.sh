#!/usr/bin/env bash
# Screenshots at 1200x800, in English and in Simplified Chinese: the main
# window coloured by source (a small store from the demo corpus, a sample
# article with high and medium segments from several sources, checked) with
# the comparison of its first high flag (sources-LANG) and of its first
# reworded flag (compare-LANG), and the side-by-side comparison of the sample
# article with the source it copies most from (compare-two-LANG), and the
# corpus manager with a search typed (corpus-LANG), and the checked sample
# in a 640x480 window, where the text and the results fold into one view
# (narrow-LANG).
#
# usage: tests/ui/screenshots.sh OUTDIR   (build in $SIMHOUND_BUILD_DIR, default build/;
#        SIMHOUND_TEST_STYLE=dark for the dark style)
set -euo pipefail
# Without the zh_CN locale gettext ignores LANGUAGE and the "Chinese" shots
# come out in English: say so and stop rather than take them.
if ! locale -a 2>/dev/null | grep -qix 'zh_CN.utf-\?8'; then
  echo "screenshots.sh: the zh_CN.UTF-8 locale is missing (run.sh generates it: locale-gen zh_CN.UTF-8);" \
       "the Chinese screenshots would be in English" >&2
  exit 1
fi

top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: screenshots.sh OUTDIR}
build=${SIMHOUND_BUILD_DIR:-$top/build}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

texts=$top/build/demo/texts
if [ ! -d "$texts" ]; then
  python3 "$top/corpus/extract-debian-texts.py" "$work/texts" >/dev/null
  texts=$work/texts
fi
"$build/app/simhound-cli" --store "$work/store.db" corpus add "$texts" >/dev/null
python3 "$top/corpus/make-sample.py" "$texts" "$work/sample.txt" 2>/dev/null
source=$("$build/app/simhound-cli" --store "$work/store.db" check --json "$work/sample.txt" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["sources"][0]["document"])')

export GSETTINGS_BACKEND=memory GSETTINGS_SCHEMA_DIR=$build/resources GSK_RENDERER=cairo NO_AT_BRIDGE=1
mkdir -p "$work/locale/zh_CN/LC_MESSAGES"
msgfmt -o "$work/locale/zh_CN/LC_MESSAGES/simhound.mo" "$top/po/zh_CN.po"
export SIMHOUND_LOCALEDIR=$work/locale
for lang in en zh_CN; do
  # gettext needs a real locale for LANGUAGE to count; run.sh generates zh_CN.UTF-8.
  locale=$([ $lang = zh_CN ] && echo zh_CN.UTF-8 || echo C.UTF-8)
  LANGUAGE=$lang LANG=$locale LC_ALL=$locale xvfb-run -a -s '-screen 0 1280x1024x24' \
    "$build/tests/test-window" --screenshot "$out/sources-$lang.png" --text "$work/sample.txt" --store "$work/store.db"
  LANGUAGE=$lang LANG=$locale LC_ALL=$locale xvfb-run -a -s '-screen 0 1280x1024x24' \
    "$build/tests/test-window" --screenshot "$out/compare-$lang.png" --text "$work/sample.txt" --store "$work/store.db" \
    --reworded
  LANGUAGE=$lang LANG=$locale LC_ALL=$locale xvfb-run -a -s '-screen 0 1280x1024x24' \
    "$build/tests/test-compare" --screenshot "$out/compare-two-$lang.png" "$work/sample.txt" "$source"
  LANGUAGE=$lang LANG=$locale LC_ALL=$locale xvfb-run -a -s '-screen 0 1280x1024x24' \
    "$build/tests/test-corpus-window" --screenshot "$out/corpus-$lang.png" "$work/store.db" "$([ $lang = zh_CN ] && echo 网络 || echo network)"
  LANGUAGE=$lang LANG=$locale LC_ALL=$locale xvfb-run -a -s '-screen 0 1280x1024x24' \
    "$build/tests/test-window" --screenshot "$out/narrow-$lang.png" --text "$work/sample.txt" --store "$work/store.db" \
    --narrow
  echo "$out/sources-$lang.png $out/compare-$lang.png $out/compare-two-$lang.png $out/corpus-$lang.png $out/narrow-$lang.png"
done
