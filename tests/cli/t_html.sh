# skip report --html: a self-contained page (no script, nothing fetched) with the sweep's three
# SVG charts, the crossover marked and the tables; rendered in headless Chromium, whose
# screenshot must not be blank. Chromium comes from Debian (mk/deps.sh browser).
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
cd "$TMPDIR" || exit 1

expect_exit 0 "$SKIP" report --no-color --region prefill --html sweep.html "$FIXTURES/gpt2_sweep.skip.db"
expect_out "wrote sweep.html"
[ "$(grep -o "<svg class='chart'" sweep.html | wc -l)" = 3 ] || fail "three charts expected"
[ "$(grep -o "<polyline" sweep.html | wc -l)" = 3 ] || fail "three lines expected"
grep -q "verdict flip 9.18" sweep.html || fail "the crossover is not marked"
grep -q "TKLQT knee 5.73" sweep.html || fail "the knee is not marked"
grep -q "threshold 50%" sweep.html || fail "the threshold line is missing"
! grep -qiE "<script|src=|href=|https?://|@import|url\(" sweep.html || fail "the page must not fetch or run anything"
expect_exit 0 "$SKIP" report --no-color --html runs.html "$FIXTURES/h100_launch_chain.skip.db"
[ "$(grep -o "<svg class='chart'" runs.html | wc -l)" = 2 ] || fail "two region charts expected"
expect_exit 1 "$SKIP" report --html /nonexistent/dir/x.html "$FIXTURES/h100_graph.skip.db"
expect_out "cannot write /nonexistent/dir/x.html"

sh "$here/../../mk/deps.sh" ensure browser >/dev/null 2>&1 || skip_test "no Chromium (mk/deps.sh browser needs root and apt)"
command -v python3 >/dev/null 2>&1 || skip_test "no python3 to read the screenshot"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$TMPDIR/chromium" --hide-scrollbars --window-size=1300,1500 \
	--screenshot="$TMPDIR/sweep.png" "file://$TMPDIR/sweep.html" > chromium.log 2>&1 ||
	{ cat chromium.log; fail "chromium failed"; }
set -- $(python3 "$here/png_stats.py" sweep.png)
[ "$1" = 1300 ] && [ "$2" = 1500 ] || fail "screenshot size $1 x $2"
# Charts and tables put ink on a good share of the page, in several colors.
python3 -c "import sys; sys.exit(0 if float('$3') > 0.02 else 1)" || fail "blank screenshot (ink $3)"
[ "$4" -ge 8 ] || fail "only $4 colors: the charts did not render"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$TMPDIR/chromium" --dump-dom "file://$TMPDIR/sweep.html" > dom.html 2>/dev/null
[ "$(grep -o '<polyline' dom.html | wc -l)" = 3 ] || fail "the browser's DOM lacks the charts"
exit 0
