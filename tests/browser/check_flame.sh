#!/bin/sh
# tests/browser/check_flame.sh SVG TERM - load a flame graph SVG in headless
# Chromium and drive its script: search for TERM, click the first match.
#
# The SVG is put inline in an HTML page (its XML declaration dropped)
# followed by a test script that calls the graph's window.amberFlame API,
# dispatches a real click event on a frame, and writes what it saw into the
# DOM; `chromium --dump-dom` prints that DOM.  Output, one "key value" a line:
#   search-frames N     frames the search matched
#   search-percent P    matched share (%) the graph reports
#   highlighted N       frames painted in the search colour
#   matched-text TEXT   the status text
#   zoom-width PX       the clicked frame's width after the click
#   zoom-hidden N       frames hidden by the zoom
#   unzoom-visible B    the "Reset zoom" button is shown
#   errors N[: MSGS]    script errors (uncaught, or thrown by the test)
# The standalone SVG is also loaded on its own; an "Uncaught" console error
# there is reported as "standalone-errors N".
# Exit 2 when Chromium is missing, 1 when it fails to run.
set -u
svg=$1
term=$2
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || { echo "chromium not installed" >&2; exit 2; }

dir=$(mktemp -d "${TMPDIR:-/tmp}/amber-browser.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT

# JSON-quote TERM for the test script.
jterm=$(printf '%s' "$term" | sed 's/\\/\\\\/g; s/"/\\"/g')
{
	cat <<'HEAD'
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>flame test</title>
<script>
window.testErrors = [];
window.addEventListener('error', function (e) { window.testErrors.push(String(e.message)); });
</script></head><body>
HEAD
	sed '1{/^<?xml/d}' "$svg"
	cat <<EOF2
<pre id="result"></pre>
<script>
(function () {
	var out = [], term = "$jterm";
	function frames() { return Array.prototype.slice.call(document.querySelectorAll('g.f')); }
	try {
		var api = window.amberFlame;
		if (!api)
			throw new Error('window.amberFlame missing: the graph script did not run');
		var r = api.search(term);
		out.push('search-frames ' + r.frames);
		out.push('search-percent ' + r.percent.toFixed(2));
		out.push('highlighted ' + frames().filter(function (g) {
			return g.querySelector('rect').getAttribute('fill') === 'rgb(230,0,230)';
		}).length);
		out.push('matched-text ' + document.getElementById('matched').textContent);
		var target = document.querySelector('g.f.match');
		target.querySelector('rect').dispatchEvent(new MouseEvent('click', { bubbles: true }));
		out.push('zoom-width ' + (+target.querySelector('rect').getAttribute('width')).toFixed(1));
		out.push('zoom-hidden ' + frames().filter(function (g) {
			return g.style.display === 'none';
		}).length);
		out.push('unzoom-visible ' + (document.getElementById('unzoom').style.display !== 'none'));
	} catch (e) {
		window.testErrors.push(String(e));
	}
	out.push('errors ' + window.testErrors.length +
		 (window.testErrors.length ? ': ' + window.testErrors.join(' | ') : ''));
	document.getElementById('result').textContent = out.join('\n');
})();
</script></body></html>
EOF2
} >"$dir/page.html"

run_chromium() {
	timeout --kill-after=5 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$dir/profile" "$@"
}

run_chromium --dump-dom "file://$dir/page.html" >"$dir/dom.html" 2>"$dir/chromium.log" || {
	echo "chromium failed: $(tail -n 3 "$dir/chromium.log")" >&2
	exit 1
}
awk '/<pre id="result">/ { p = 1 } p { print } p && /<\/pre>/ { exit }' "$dir/dom.html" |
	sed 's/.*<pre id="result">//; s/<\/pre>.*//' | sed '/^$/d'

cp "$svg" "$dir/graph.svg"
run_chromium --enable-logging=stderr --v=0 --dump-dom "file://$dir/graph.svg" \
	>/dev/null 2>"$dir/standalone.log"
echo "standalone-errors $(grep -c 'Uncaught' "$dir/standalone.log")"
