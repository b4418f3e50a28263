#!/bin/sh
# tests/browser/load_speedscope.sh PROFILE [SCREENSHOT.png] - load PROFILE
# (speedscope JSON, Chrome trace JSON, perf script text ...) into the
# speedscope web app of the `speedscope` npm package, in headless Chromium,
# through the app's own import path (speedscope.loadFileFromBase64, what its
# CLI uses), and print what the app imported, one line per profile:
#   profile NAME<TAB>frames N<TAB>weight W<TAB>unit U
# then "errors N[: MSGS]" (script errors on the page) and "title TEXT" (the
# toolbar's "NAME (1/N)", read from the rendered page).
#
# The app's bundle is copied and its loadFileFromBase64 hook is wrapped so
# that the ProfileGroup the importers return is also written into the DOM,
# which `chromium --dump-dom` prints.  The package is installed once with
# npm into $AMB_BUILD/speedscope (SPEEDSCOPE_VERSION, default 1.25.0).
# Exit 2 when chromium, node or npm is missing, 1 when a step fails.
set -u
prof=$1
shot=${2:-}
B=${AMB_BUILD:-build}
VERSION=${SPEEDSCOPE_VERSION:-1.25.0}
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -n "$CHROMIUM" ] || { echo "chromium not installed" >&2; exit 2; }
command -v node >/dev/null 2>&1 || { echo "node not installed" >&2; exit 2; }
command -v npm >/dev/null 2>&1 || { echo "npm not installed" >&2; exit 2; }

pkg=$B/speedscope/node_modules/speedscope
if [ ! -f "$pkg/dist/release/index.html" ]; then
	mkdir -p "$B/speedscope" &&
	(cd "$B/speedscope" && npm install --no-audit --no-fund --silent "speedscope@$VERSION" >npm.log 2>&1) ||
		{ echo "npm install speedscope@$VERSION failed: $(tail -n 3 "$B/speedscope/npm.log")" >&2; exit 1; }
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/amber-speedscope.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
cp -r "$pkg/dist/release" "$dir/app" || exit 1
node - "$dir/app" "$prof" "$dir/load.js" <<'NODE' || exit 1
const fs = require('fs'), path = require('path');
const [app, prof, loader] = process.argv.slice(2);
const js = fs.readdirSync(app).find(f => /^speedscope-.*\.js$/.test(f));
let src = fs.readFileSync(path.join(app, js), 'utf8');
const re = /loadFileFromBase64:\((\w+),(\w+)\)=>\{this\.loadProfile\(\(\)=>(\w+)\(\1,\2\)\)\}/;
if (!re.test(src)) { console.error('speedscope bundle: loadFileFromBase64 hook not found'); process.exit(1); }
src = src.replace(re, (m, a, b, f) =>
  `loadFileFromBase64:(${a},${b})=>{this.loadProfile(async()=>{let g;try{g=await ${f}(${a},${b})}` +
  `catch(e){window.__ambReport("error "+e);throw e}window.__ambReport(g);return g})}`);
fs.writeFileSync(path.join(app, js), src);
const report = `<script>
window.__ambErrors = [];
window.addEventListener('error', e => window.__ambErrors.push(String(e.message)));
window.__ambReport = function (g) {
  const out = [];
  if (typeof g === 'string' || !g) out.push(String(g || 'no profile imported'));
  else for (const p of g.profiles) {
    let frames = 0;
    p.forEachFrame(() => frames++);
    out.push('profile ' + p.getName() + '\\tframes ' + frames + '\\tweight ' + p.getTotalWeight() +
             '\\tunit ' + p.getWeightUnit());
  }
  setTimeout(() => {
    const title = Array.from(document.querySelectorAll('span')).find(d =>
      /\\(\\d+\\/\\d+\\)\\s*$/.test(d.textContent) && d.textContent.length < 300);
    out.push('errors ' + window.__ambErrors.length + (window.__ambErrors.length ? ': ' + window.__ambErrors.join(' | ') : ''));
    out.push('title ' + (title ? title.textContent.trim() : '(none)'));
    out.push('document ' + document.title);
    const pre = document.createElement('pre');
    pre.id = 'amb-result';
    pre.textContent = out.join('\\n');
    document.body.appendChild(pre);
  }, 500);
};
</script>`;
let html = fs.readFileSync(path.join(app, 'index.html'), 'utf8');
html = html.replace(/<head>/i, '<head>' + report);
fs.writeFileSync(path.join(app, 'index.html'), html);
const b64 = fs.readFileSync(prof).toString('base64');
fs.writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify(path.basename(prof))}, ${JSON.stringify(b64)})`);
NODE

url="file://$dir/app/index.html#localProfilePath=$dir/load.js"
flags="--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
--allow-file-access-from-files --user-data-dir=$dir/profile --virtual-time-budget=30000"
# shellcheck disable=SC2086
timeout 120 "$CHROMIUM" $flags --dump-dom "$url" >"$dir/dom.html" 2>"$dir/chromium.log" ||
	{ echo "chromium failed: $(tail -n 3 "$dir/chromium.log")" >&2; exit 1; }
if [ -n "$shot" ]; then
	# shellcheck disable=SC2086
	timeout 120 "$CHROMIUM" $flags --window-size=1400,900 --screenshot="$shot" "$url" \
		>/dev/null 2>>"$dir/chromium.log" || echo "screenshot failed" >&2
fi
node -e '
const html = require("fs").readFileSync(process.argv[1], "utf8");
const m = html.match(/<pre id="amb-result">([\s\S]*?)<\/pre>/);
if (!m) { console.log("errors 1: the page reported nothing (import did not finish)"); process.exit(1); }
const unesc = s => s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&#39;/g, "\x27").replace(/&amp;/g, "&");
console.log(unesc(m[1]));
' "$dir/dom.html"
