// Browser test of the HTML replay (ctest: browser_a1_replay). Headless Chromium (Debian's
// chromium, driven by playwright-core from web/node_modules) opens the A1 replay that
// `maxsim simulate --view` and `maxsim view` write, advances time, takes screenshots and checks
// that the robot is drawn (pixels that change when the robot is hidden, in the middle of the view)
// and that it moves (pixels that differ between two times).
//
//   node tests/browser/a1_replay.mjs --maxsim build/maxsim [--out DIR] [--docs docs/images/a1_replay.png]
//
// Exit status 0 passed, 1 failed, 77 skipped (no Chromium, no web/node_modules).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import zlib from 'node:zlib';

const started = Date.now();
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const maxsim = path.resolve(arg('--maxsim', path.join(root, 'build', 'maxsim')));
const out = path.resolve(arg('--out', fs.mkdtempSync(path.join(os.tmpdir(), 'maxsim-browser-'))));
const docs = arg('--docs', '');
const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

function skip(why) {
  console.log(`SKIPPED: ${why}`);
  process.exit(77);
}
function fail(why) {
  console.error(`FAILED: ${why}`);
  process.exitCode = 1;
}

if (!fs.existsSync(chromiumPath)) skip(`${chromiumPath} not found (make deps installs Debian's chromium)`);
let chromium;
try {
  chromium = createRequire(path.join(root, 'web', 'package.json'))('playwright-core').chromium;
} catch {
  skip('web/node_modules/playwright-core is missing (make deps runs npm ci in web/)');
}
if (!fs.existsSync(maxsim)) skip(`${maxsim} not built`);
fs.mkdirSync(out, { recursive: true });

// ---- PNG decoding (8-bit RGB/RGBA, not interlaced: what Chromium writes) ----------------------
function decodePng(buf) {
  let p = 8, width = 0, height = 0, channels = 0;
  const idat = [];
  while (p < buf.length) {
    const len = buf.readUInt32BE(p), type = buf.toString('latin1', p + 4, p + 8);
    const data = buf.subarray(p + 8, p + 8 + len);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error('unsupported PNG (bit depth or interlace)');
      channels = { 2: 3, 6: 4 }[data[9]];
      if (!channels) throw new Error(`unsupported PNG colour type ${data[9]}`);
    } else if (type === 'IDAT') idat.push(data);
    p += 12 + len;
  }
  const raw = zlib.inflateSync(Buffer.concat(idat));
  const stride = width * channels, px = Buffer.alloc(width * height * 3);
  let prev = Buffer.alloc(stride);
  for (let y = 0; y < height; ++y) {
    const f = raw[y * (stride + 1)], line = Buffer.from(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)));
    for (let x = 0; x < stride; ++x) {
      const a = x >= channels ? line[x - channels] : 0, b = prev[x], c = x >= channels ? prev[x - channels] : 0;
      let v = 0;
      if (f === 1) v = a;
      else if (f === 2) v = b;
      else if (f === 3) v = (a + b) >> 1;
      else if (f === 4) {
        const pa = Math.abs(b - c), pb = Math.abs(a - c), pc = Math.abs(a + b - 2 * c);
        v = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
      }
      line[x] = (line[x] + v) & 255;
    }
    for (let x = 0; x < width; ++x) for (let k = 0; k < 3; ++k) px[(y * width + x) * 3 + k] = line[x * channels + k];
    prev = line;
  }
  return { width, height, px };
}

// Pixels whose colours differ by more than `threshold` (sum over RGB), and their bounding box.
function difference(a, b, threshold = 48) {
  let count = 0, x0 = a.width, y0 = a.height, x1 = -1, y1 = -1;
  for (let y = 0; y < a.height; ++y)
    for (let x = 0; x < a.width; ++x) {
      const i = (y * a.width + x) * 3;
      const d = Math.abs(a.px[i] - b.px[i]) + Math.abs(a.px[i + 1] - b.px[i + 1]) + Math.abs(a.px[i + 2] - b.px[i + 2]);
      if (d > threshold) {
        ++count;
        x0 = Math.min(x0, x), y0 = Math.min(y0, y), x1 = Math.max(x1, x), y1 = Math.max(y1, y);
      }
    }
  return { count, fraction: count / (a.width * a.height), box: [x0, y0, x1, y1] };
}

// ---- the A1 run -------------------------------------------------------------------------------------
const urdf = path.join(root, 'robots', 'a1', 'urdf', 'a1.urdf');
const csv = path.join(out, 'a1.csv');
const simHtml = path.join(out, 'a1_simulate.html');
const viewHtml = path.join(out, 'a1_view.html');
// legs released from bent poses swing under gravity (the base is welded and lifted onto a
// pedestal by `simulate`; calves inside their limits, which the A1's zero pose is not)
execFileSync(maxsim, ['simulate', urdf, '--fixed-base', '--duration', '1', '--dt', '0.01',
  '--q', 'FR_thigh_joint=1.2', '--q', 'FL_thigh_joint=-0.6', '--q', 'RR_calf_joint=-2.0',
  '--q', 'RL_hip_joint=0.5', '--q', 'FL_calf_joint=-1.0', '--q', 'FR_calf_joint=-1.0',
  '--q', 'RL_calf_joint=-1.2',
  '--output', csv, '--view', simHtml], { stdio: ['ignore', 'ignore', 'inherit'] });
execFileSync(maxsim, ['view', urdf, csv, '-o', viewHtml], { stdio: ['ignore', 'ignore', 'inherit'] });
// the same run with two made-up contacts (CSV columns contact.K.x .. contact.K.fz)
const contactCsv = path.join(out, 'a1_contacts.csv'), contactHtml = path.join(out, 'a1_contacts.html');
{
  const lines = fs.readFileSync(csv, 'utf8').trim().split('\n');
  const head = [0, 1].flatMap((k) => ['x', 'y', 'z', 'fx', 'fy', 'fz'].map((f) => `contact.${k}.${f}`));
  // contact 0 under the front right foot in every frame; contact 1 in every other frame only
  const c0 = [0.15, -0.3, -0.35, 0, 10, 60], c1 = [-0.3, 0.3, -0.3, 0, 0, 40];
  const rows = lines.slice(1).map((l, i) => [l, ...c0, ...(i % 2 ? ['', '', '', '', '', ''] : c1)].join(','));
  fs.writeFileSync(contactCsv, [`${lines[0]},${head.join(',')}`, ...rows].join('\n') + '\n');
}
execFileSync(maxsim, ['view', urdf, contactCsv, '-o', contactHtml], { stdio: ['ignore', 'ignore', 'inherit'] });
const htmlBytes = fs.statSync(viewHtml).size;
console.log(`A1 replay: ${(htmlBytes / 1e6).toFixed(2)} MB (${viewHtml})`);

const browser = await chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  // a fresh profile directory is made by playwright for each launch
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    '--enable-unsafe-swiftshader', '--use-angle=swiftshader'],
});
try {
  for (const [name, file] of [['view', viewHtml], ['simulate', simHtml]]) {
    const page = await browser.newPage({ viewport: { width: 960, height: 600 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) errors.push(`network request: ${r.url()}`); });
    // antialias=0: SwiftShader draws ~5x faster without multisampling
    await page.goto(pathToFileURL(file).href + '?antialias=0');
    const info = await page.evaluate(() => window.maxsimViewer.ready.then((api) => ({ frames: api.frames, duration: api.duration, bodies: api.bodies.length })));
    if (info.frames !== 101 || info.bodies !== 13) fail(`${name}: ${info.frames} frames, ${info.bodies} bodies (expected 101, 13)`);
    // playback runs: time advances by itself
    await page.evaluate(() => { window.maxsimViewer.setSpeed(1); window.maxsimViewer.play(); });
    const t0 = await page.evaluate(() => window.maxsimViewer.time());
    await page.waitForTimeout(400);
    const t1 = await page.evaluate(() => window.maxsimViewer.time());
    if (!(t1 !== t0)) fail(`${name}: playing does not advance time (${t0} -> ${t1})`);

    const shot = async (t, robot = true) => {
      await page.evaluate(([time, visible]) => {
        const v = window.maxsimViewer;
        v.pause();
        v.setRobotVisible(visible);
        v.setTime(time);
        return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      }, [t, robot]);
      return await page.screenshot({ type: 'png' });
    };
    const pngStart = await shot(0);
    const pngHidden = await shot(0, false);
    const pngLater = await shot(0.45);
    await shot(0);  // robot visible again
    const a = decodePng(pngStart), hidden = decodePng(pngHidden), later = decodePng(pngLater);
    fs.writeFileSync(path.join(out, `${name}_t0.png`), pngStart);
    fs.writeFileSync(path.join(out, `${name}_t045.png`), pngLater);

    const drawn = difference(a, hidden);
    const [x0, y0, x1, y1] = drawn.box;
    const cx = (x0 + x1) / 2 / a.width, cy = (y0 + y1) / 2 / a.height;
    console.log(`${name}: robot covers ${(100 * drawn.fraction).toFixed(1)} % of the view, box [${drawn.box}], centre (${cx.toFixed(2)}, ${cy.toFixed(2)})`);
    if (drawn.fraction < 0.01) fail(`${name}: the robot is not drawn (${drawn.count} pixels)`);
    if (cx < 0.25 || cx > 0.75 || cy < 0.2 || cy > 0.8) fail(`${name}: the robot is not in the middle of the view`);
    const moved = difference(a, later);
    console.log(`${name}: ${(100 * moved.fraction).toFixed(2)} % of the pixels differ between t = 0 and t = 0.45 s`);
    if (moved.fraction < 0.003) fail(`${name}: the robot does not move between t = 0 and t = 0.45 s`);
    // the slider follows the time
    const slider = await page.evaluate(() => document.getElementById('mx-slider').value);
    if (slider !== '0') fail(`${name}: the time slider shows frame ${slider} at t = 0`);
    if (errors.length) fail(`${name}: page errors: ${errors.join('; ')}`);
    await page.close();
  }
  {  // contacts and collision shapes: the check boxes change what is drawn
    const page = await browser.newPage({ viewport: { width: 960, height: 600 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(contactHtml).href + '?antialias=0');
    const info = await page.evaluate(() => window.maxsimViewer.ready.then((v) => { v.pause(); v.setTime(0.2); return v.info(); }));
    if (!info.contacts) fail('contacts: the page has no contacts');
    const settle = () => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await settle();
    const on = decodePng(await page.screenshot({ type: 'png' }));
    await page.click('#mx-contacts');
    await settle();
    const off = decodePng(await page.screenshot({ type: 'png' }));
    await page.click('#mx-collision');
    await settle();
    const collision = decodePng(await page.screenshot({ type: 'png' }));
    const contacts = difference(on, off), shapes = difference(off, collision, 24);
    console.log(`contacts: ${contacts.count} pixels; collision shapes: ${shapes.count} pixels`);
    if (contacts.count < 100) fail('contacts: the contact points and arrows are not drawn');
    if (shapes.count < 1000) fail('contacts: the collision shapes are not drawn');
    if (errors.length) fail(`contacts: page errors: ${errors.join('; ')}`);
    await page.close();
  }
  {  // a model of world geoms alone, a height field: the page loads, the field is its one mesh
    const bumps = path.join(root, 'tests', 'data', 'terrain', 'bumps.xml'), bumpsHtml = path.join(out, 'bumps.html');
    execFileSync(maxsim, ['simulate', bumps, '--duration', '0.02', '--view', bumpsHtml], { stdio: ['ignore', 'ignore', 'inherit'] });
    const page = await browser.newPage({ viewport: { width: 960, height: 600 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(pathToFileURL(bumpsHtml).href + '?antialias=0');
    const info = await page.evaluate(() => window.maxsimViewer.ready.then((v) => v.info()));
    console.log(`height field: ${info.bodies} bodies, ${info.meshes} meshes, ${info.geoms} geoms`);
    if (info.bodies !== 0 || info.meshes !== 1) fail(`height field: ${info.bodies} bodies and ${info.meshes} meshes (expected 0, 1)`);
    if (errors.length) fail(`height field: page errors: ${errors.join('; ')}`);
    await page.close();
  }
  if (docs) {  // the README's picture: antialiased, mid-swing
    const page = await browser.newPage({ viewport: { width: 960, height: 600 } });
    await page.goto(pathToFileURL(viewHtml).href);
    await page.evaluate(() => window.maxsimViewer.ready.then((v) => { v.pause(); v.setTime(0.3); }));
    await page.waitForTimeout(300);
    fs.writeFileSync(path.resolve(docs), await page.screenshot({ type: 'png' }));
    console.log(`wrote ${docs}`);
    await page.close();
  }
} finally {
  await browser.close();
}
const seconds = (Date.now() - started) / 1000;
console.log(`browser test ${process.exitCode ? 'FAILED' : 'passed'} in ${seconds.toFixed(1)} s (screenshots in ${out})`);
