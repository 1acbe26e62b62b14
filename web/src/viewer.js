// The replay viewer that `maxsim view` embeds into each HTML page (see io/replay.hpp for
// the data it reads). Bundled with three.js by esbuild at build time (web/CMakeLists.txt).
//
// The page holds <script id="maxsim-replay"> (JSON: bodies, geoms, meshes, offsets) and
// <script id="maxsim-blob"> (base64 of the gzip'd binary sections). World frame: z up, metres.
// window.maxsimViewer is a small API for scripts and the browser test:
//   ready (Promise), frames, duration, setTime(t), time(), play(), pause(), setSpeed(s),
//   setRobotVisible(bool), renderNow(), info().
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

THREE.Object3D.DEFAULT_UP.set(0, 0, 1);

const CSS = `
html, body { margin: 0; height: 100%; overflow: hidden; background: #dfe6ee;
  font: 13px/1.3 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1d2733; }
#mx-canvas { position: fixed; inset: 0; width: 100%; height: 100%; display: block; }
#mx-hud { position: fixed; left: 10px; top: 8px; background: rgba(255,255,255,0.82); border-radius: 6px;
  padding: 6px 10px; max-width: 46vw; pointer-events: none; }
#mx-hud .title { font-weight: 600; font-size: 14px; }
#mx-hud .files { color: #5b6673; font-size: 11px; word-break: break-all; }
#mx-hud .values { font-variant-numeric: tabular-nums; margin-top: 3px; white-space: pre; }
#mx-bar { position: fixed; left: 0; right: 0; bottom: 0; display: flex; gap: 10px; align-items: center;
  padding: 8px 12px; background: rgba(255,255,255,0.9); border-top: 1px solid #c5ced8; flex-wrap: wrap; }
#mx-bar button { min-width: 64px; padding: 3px 8px; font: inherit; }
#mx-slider { flex: 1 1 240px; min-width: 120px; }
#mx-time { font-variant-numeric: tabular-nums; min-width: 150px; }
#mx-bar label { white-space: nowrap; user-select: none; }
#mx-error { position: fixed; inset: 30% 10% auto 10%; background: #fff3f3; border: 1px solid #d33;
  padding: 12px; border-radius: 6px; white-space: pre-wrap; }
`;

// ---- data ------------------------------------------------------------------------------------------
async function decodeBlob(text, encoding) {
  const bin = atob(text.trim());
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; ++i) bytes[i] = bin.charCodeAt(i);
  if (encoding !== 'gzip') return bytes.buffer;
  if (typeof DecompressionStream === 'undefined')
    throw new Error('This browser has no DecompressionStream (needed to unpack the replay); use Chrome 80+, Firefox 113+ or Safari 16.4+.');
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return await new Response(stream).arrayBuffer();
}

function meshGeometry(buffer, m) {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(buffer, m.vertices, m.vertex_count * 3), 3));
  const Index = m.index_bytes === 4 ? Uint32Array : Uint16Array;
  g.setIndex(new THREE.BufferAttribute(new Index(buffer, m.indices, m.index_count), 1));
  g.computeBoundingSphere();
  return g;
}

// A three.js geometry in the geom frame (primitives along z as maxsim and MuJoCo define them).
function primitiveGeometry(geom) {
  const s = geom.size;
  switch (geom.type) {
    case 'box': return new THREE.BoxGeometry(2 * s[0], 2 * s[1], 2 * s[2]);
    case 'sphere': return new THREE.SphereGeometry(s[0], 24, 16);
    case 'ellipsoid': {
      const g = new THREE.SphereGeometry(1, 24, 16);
      g.scale(s[0], s[1], s[2]);
      return g;
    }
    case 'capsule': {
      const g = new THREE.CapsuleGeometry(s[0], 2 * s[1], 8, 20);
      g.rotateX(Math.PI / 2);  // three's capsules run along y
      return g;
    }
    case 'cylinder': {
      const g = new THREE.CylinderGeometry(s[0], s[0], 2 * s[1], 24);
      g.rotateX(Math.PI / 2);
      return g;
    }
    case 'plane': {
      const hx = s[0] > 0 ? s[0] : 10, hy = s[1] > 0 ? s[1] : 10;
      return new THREE.PlaneGeometry(2 * hx, 2 * hy);
    }
    default: return null;
  }
}

// ---- the viewer -------------------------------------------------------------------------------------
class Viewer {
  constructor(data, buffer) {
    this.data = data;
    this.nb = data.bodies.length;
    this.n = data.frames;
    this.times = new Float64Array(buffer, data.times, this.n);
    this.poses = new Float32Array(buffer, data.poses, this.n * this.nb * 7);
    this.scalars = data.scalars.map((s) => ({ name: s.name, values: new Float64Array(buffer, s.offset, this.n) }));
    if (data.contacts) {
      this.contactCounts = new Uint32Array(buffer, data.contacts.counts, this.n);
      this.contactData = new Float32Array(buffer, data.contacts.data, data.contacts.total * 6);
      this.contactStart = new Uint32Array(this.n + 1);
      for (let i = 0; i < this.n; ++i) this.contactStart[i + 1] = this.contactStart[i] + this.contactCounts[i];
    }
    this.t0 = this.times[0];
    this.t1 = this.times[this.n - 1];
    this.t = this.t0;
    this.playing = true;
    this.speed = 1;
    this.loop = true;
    this.buildDom();
    this.buildScene(buffer);
    this.setTime(this.t0);
    this.fitCamera();
    this.last = performance.now();
    const tick = (now) => {
      const dt = Math.min(0.1, (now - this.last) / 1000);
      this.last = now;
      if (this.playing && this.t1 > this.t0) {
        let t = this.t + dt * this.speed;
        if (t > this.t1) {
          if (this.loop) t = this.t0 + ((t - this.t0) % (this.t1 - this.t0));
          else { t = this.t1; this.setPlaying(false); }
        }
        this.setTime(t);
      }
      // draw only when something changed (playing, camera moved, new time): idle pages cost nothing
      if (this.controls.update()) this.dirty = true;
      if (this.dirty) this.renderNow();
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }

  // ---- page ----
  buildDom() {
    const style = document.createElement('style');
    style.textContent = CSS;
    document.head.appendChild(style);
    this.canvas = document.createElement('canvas');
    this.canvas.id = 'mx-canvas';
    document.body.appendChild(this.canvas);

    const hud = document.createElement('div');
    hud.id = 'mx-hud';
    const title = document.createElement('div');
    title.className = 'title';
    title.textContent = this.data.title;
    const files = document.createElement('div');
    files.className = 'files';
    const base = (f) => f.split(/[\\/]/).pop();
    files.textContent = [this.data.model_file, this.data.trajectory_file].filter((s) => s).map(base).join('  ·  ');
    this.values = document.createElement('div');
    this.values.className = 'values';
    hud.append(title, files, this.values);
    document.body.appendChild(hud);

    const bar = document.createElement('div');
    bar.id = 'mx-bar';
    this.playButton = document.createElement('button');
    this.playButton.id = 'mx-play';
    this.playButton.addEventListener('click', () => this.setPlaying(!this.playing));
    this.slider = document.createElement('input');
    this.slider.id = 'mx-slider';
    this.slider.type = 'range';
    this.slider.min = 0;
    this.slider.max = Math.max(1, this.n - 1);
    this.slider.step = 1;
    this.slider.addEventListener('input', () => {
      this.setPlaying(false);
      this.setTime(this.times[Number(this.slider.value)]);
    });
    this.timeLabel = document.createElement('span');
    this.timeLabel.id = 'mx-time';
    const speed = document.createElement('select');
    speed.id = 'mx-speed';
    speed.title = 'playback speed';
    for (const s of [0.05, 0.1, 0.25, 0.5, 1, 2, 4]) {
      const o = document.createElement('option');
      o.value = s;
      o.textContent = `${s}×`;
      if (s === 1) o.selected = true;
      speed.appendChild(o);
    }
    speed.addEventListener('change', () => { this.speed = Number(speed.value); });
    this.speedSelect = speed;
    const check = (id, text, checked, onChange) => {
      const label = document.createElement('label');
      const box = document.createElement('input');
      box.type = 'checkbox';
      box.id = id;
      box.checked = checked;
      box.addEventListener('change', () => onChange(box.checked));
      label.append(box, ' ' + text);
      return label;
    };
    bar.append(this.playButton, this.slider, this.timeLabel, speed,
      check('mx-loop', 'loop', true, (v) => { this.loop = v; }),
      check('mx-follow', 'follow', false, (v) => { this.follow = v; this.setTime(this.t); }));
    this.followBox = bar.querySelector('#mx-follow');
    bar.append(check('mx-collision', 'collision shapes', false, (v) => this.setCollisionVisible(v)));
    if (this.data.contacts)
      bar.append(check('mx-contacts', 'contacts', true, (v) => { this.contactGroup.visible = v; this.dirty = true; }));
    document.body.appendChild(bar);
    this.setPlaying(true);

    window.addEventListener('keydown', (e) => {
      // the slider and the speed list handle their own keys
      if (e.target && (e.target.tagName === 'SELECT' || (e.target.tagName === 'INPUT' && e.target.type !== 'checkbox'))) return;
      if (e.code === 'Space') { this.setPlaying(!this.playing); e.preventDefault(); }
      else if (e.code === 'ArrowRight' || e.code === 'ArrowLeft') {
        this.setPlaying(false);
        const i = Math.min(this.n - 1, Math.max(0, this.frameAt(this.t) + (e.code === 'ArrowRight' ? 1 : -1)));
        this.setTime(this.times[i]);
        e.preventDefault();
      }
    });
  }

  setPlaying(p) {
    this.playing = p;
    this.playButton.textContent = p ? '❚❚ pause' : '▶ play';
    if (p && this.t >= this.t1 && !this.loop) this.t = this.t0;
  }

  // ---- scene ----
  buildScene(buffer) {
    // page.html?antialias=0 draws faster on software renderers (the browser test uses it)
    const antialias = new URLSearchParams(window.location.search).get('antialias') !== '0';
    this.renderer = new THREE.WebGLRenderer({ canvas: this.canvas, antialias });
    this.renderer.setPixelRatio(Math.min(2, window.devicePixelRatio || 1));
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(0xdfe6ee);
    this.camera = new THREE.PerspectiveCamera(40, 1, 0.01, 500);
    this.controls = new OrbitControls(this.camera, this.canvas);
    this.controls.enableDamping = true;
    this.controls.dampingFactor = 0.15;
    this.controls.addEventListener('change', () => { this.dirty = true; });
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x6f757c, 1.1));
    const sun = new THREE.DirectionalLight(0xffffff, 1.6);
    sun.position.set(3, -2, 6);
    this.scene.add(sun);
    const fill = new THREE.DirectionalLight(0xffffff, 0.4);
    fill.position.set(-4, 3, 2);
    this.scene.add(fill);

    const meshGeoms = this.data.meshes.map((m) => meshGeometry(buffer, m));
    // each body: its visual geoms if it has any, else its collision geoms; the collision shapes
    // of every body can be shown on top (translucent)
    this.bodies = [];
    this.collisionObjects = [];
    const hasVisual = new Array(this.nb + 1).fill(false);
    for (const g of this.data.geoms) if (g.visual) hasVisual[g.body + 1] = true;
    this.robot = new THREE.Group();
    this.scene.add(this.robot);
    for (let b = 0; b < this.nb; ++b) {
      const group = new THREE.Group();
      group.name = this.data.bodies[b];
      group.matrixAutoUpdate = true;
      this.robot.add(group);
      this.bodies.push(group);
    }
    this.world = new THREE.Group();
    this.scene.add(this.world);
    const materials = new Map();
    const material = (rgba, collisionOverlay) => {
      const key = rgba.join(',') + (collisionOverlay ? 'c' : '');
      if (!materials.has(key)) {
        const m = collisionOverlay
          ? new THREE.MeshStandardMaterial({ color: 0xff7a1a, transparent: true, opacity: 0.35, depthWrite: false })
          : new THREE.MeshStandardMaterial({
            color: new THREE.Color(rgba[0], rgba[1], rgba[2]), roughness: 0.55, metalness: 0.1,
            transparent: rgba[3] < 1, opacity: rgba[3], flatShading: true, side: THREE.DoubleSide });
        materials.set(key, m);
      }
      return materials.get(key);
    };
    for (const g of this.data.geoms) {
      const geometry = g.type === 'mesh' ? meshGeoms[g.mesh] : primitiveGeometry(g);
      if (!geometry) continue;
      const shown = g.visual || !hasVisual[g.body + 1];
      const parent = g.body >= 0 ? this.bodies[g.body] : this.world;
      const place = (obj) => {
        obj.position.set(g.pos[0], g.pos[1], g.pos[2]);
        obj.quaternion.set(g.quat[1], g.quat[2], g.quat[3], g.quat[0]);
        parent.add(obj);
        return obj;
      };
      if (shown && !(g.body < 0 && g.type === 'plane')) place(new THREE.Mesh(geometry, material(g.rgba, false)));
      if (!g.visual) {
        const overlay = place(new THREE.Mesh(geometry, material(g.rgba, true)));
        overlay.visible = false;
        overlay.renderOrder = 1;
        this.collisionObjects.push(overlay);
      }
    }

    // ground grid at z = 0, sized to where the bodies go
    const box = new THREE.Box3();
    for (let i = 0; i < this.n; i += Math.max(1, Math.floor(this.n / 200)))
      for (let b = 0; b < this.nb; ++b) {
        const o = (i * this.nb + b) * 7;
        box.expandByPoint(new THREE.Vector3(this.poses[o], this.poses[o + 1], 0));
      }
    const reach = box.isEmpty() ? 0  // (a model of world geoms alone)
      : Math.max(Math.abs(box.min.x), Math.abs(box.max.x), Math.abs(box.min.y), Math.abs(box.max.y));
    const half = Math.max(2, Math.ceil(reach + 1.5));
    const grid = new THREE.GridHelper(2 * half, 2 * half * 4, 0x7d8794, 0xb3bcc6);
    grid.rotation.x = Math.PI / 2;  // three's grid lies in xz; ours in xy
    grid.material.transparent = true;
    grid.material.opacity = 0.8;
    this.scene.add(grid);
    // translucent: without contacts bodies fall through z = 0, and stay visible below it
    const ground = new THREE.Mesh(new THREE.PlaneGeometry(2 * half, 2 * half),
      new THREE.MeshBasicMaterial({ color: 0xf4f6f8, transparent: true, opacity: 0.45, depthWrite: false, side: THREE.DoubleSide }));
    ground.position.z = -0.0005;
    this.scene.add(ground);

    // contacts: points and force arrows, a pool grown on demand
    this.contactGroup = new THREE.Group();
    this.scene.add(this.contactGroup);
    this.contactPool = [];
    this.contactMaterial = new THREE.MeshBasicMaterial({ color: 0xe0245e });
    this.contactSphere = new THREE.SphereGeometry(0.012, 12, 8);

    const onResize = () => {
      const w = window.innerWidth, h = window.innerHeight;
      this.renderer.setSize(w, h, false);
      this.camera.aspect = w / Math.max(1, h);
      this.camera.updateProjectionMatrix();
      this.dirty = true;
    };
    window.addEventListener('resize', onResize);
    onResize();
  }

  setCollisionVisible(v) {
    for (const o of this.collisionObjects) o.visible = v;
    this.dirty = true;
  }

  // Frame index with times[i] <= t (the last such frame).
  frameAt(t) {
    let lo = 0, hi = this.n - 1;
    if (t <= this.times[0]) return 0;
    if (t >= this.times[hi]) return hi;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (this.times[mid] <= t) lo = mid; else hi = mid;
    }
    return lo;
  }

  // Places every body at time t: positions interpolated, orientations slerped between frames.
  setTime(t) {
    t = Math.min(this.t1, Math.max(this.t0, t));
    this.t = t;
    this.dirty = true;
    const i = this.frameAt(t);
    const j = Math.min(this.n - 1, i + 1);
    const span = this.times[j] - this.times[i];
    const a = span > 0 ? (t - this.times[i]) / span : 0;
    const qa = new THREE.Quaternion(), qb = new THREE.Quaternion();
    for (let b = 0; b < this.nb; ++b) {
      const o = (i * this.nb + b) * 7, p = (j * this.nb + b) * 7, P = this.poses;
      const body = this.bodies[b];
      body.position.set(P[o] + a * (P[p] - P[o]), P[o + 1] + a * (P[p + 1] - P[o + 1]), P[o + 2] + a * (P[p + 2] - P[o + 2]));
      qa.set(P[o + 4], P[o + 5], P[o + 6], P[o + 3]).normalize();
      qb.set(P[p + 4], P[p + 5], P[p + 6], P[p + 3]).normalize();
      body.quaternion.slerpQuaternions(qa, qb, a);
    }
    if (this.follow && this.nb > 0) {
      const root = this.bodies[0].position;
      const delta = root.clone().sub(this.controls.target);
      this.controls.target.add(delta);
      this.camera.position.add(delta);
    }
    this.showContacts(a < 0.5 ? i : j);
    this.slider.value = i;
    const k = a < 0.5 ? i : j;
    this.timeLabel.textContent = `t = ${t.toFixed(3)} s / ${this.t1.toFixed(3)} s`;
    let text = `frame ${k + 1} / ${this.n}`;
    for (const s of this.scalars) text += `\n${s.name} = ${formatValue(s.values[k])}`;
    if (this.data.contacts) text += `\ncontacts: ${this.contactCounts[k]}`;
    this.values.textContent = text;
  }

  showContacts(frame) {
    if (!this.data.contacts) return;
    const count = this.contactCounts[frame], start = this.contactStart[frame];
    const scale = this.data.contacts.force_scale;
    while (this.contactPool.length < count) {
      const point = new THREE.Mesh(this.contactSphere, this.contactMaterial);
      const arrow = new THREE.ArrowHelper(new THREE.Vector3(0, 0, 1), new THREE.Vector3(), 0.1, 0xe0245e, 0.03, 0.018);
      this.contactGroup.add(point, arrow);
      this.contactPool.push({ point, arrow });
    }
    const dir = new THREE.Vector3();
    for (let c = 0; c < this.contactPool.length; ++c) {
      const { point, arrow } = this.contactPool[c];
      const on = c < count;
      point.visible = on;
      arrow.visible = false;
      if (!on) continue;
      const d = this.contactData, o = (start + c) * 6;
      point.position.set(d[o], d[o + 1], d[o + 2]);
      dir.set(d[o + 3], d[o + 4], d[o + 5]);
      const len = dir.length() * scale;
      if (len > 1e-4) {
        arrow.position.copy(point.position);
        arrow.setDirection(dir.normalize());
        arrow.setLength(Math.min(len, 2), Math.min(0.03, 0.4 * len), Math.min(0.018, 0.25 * len));
        arrow.visible = true;
      }
    }
  }

  // Looks at the bodies of the first frame from the front left, a little above.
  fitCamera() {
    const box = new THREE.Box3();
    this.robot.updateMatrixWorld(true);
    box.setFromObject(this.robot);
    if (box.isEmpty()) {
      for (const b of this.bodies) box.expandByPoint(b.position);
      box.expandByScalar(0.5);
    }
    const sphere = box.getBoundingSphere(new THREE.Sphere());
    const r = Math.max(0.1, sphere.radius);
    const dir = new THREE.Vector3(1.0, -1.6, 0.75).normalize();
    const dist = r / Math.sin(THREE.MathUtils.degToRad(this.camera.fov / 2)) * 1.05;
    this.controls.target.copy(sphere.center);
    this.camera.position.copy(sphere.center).addScaledVector(dir, dist);
    this.camera.near = Math.max(0.001, dist / 200);
    this.camera.far = dist * 200;
    this.camera.updateProjectionMatrix();
    this.controls.update();
    // follow a base that travels further than the robot is large
    let travel = 0;
    for (let i = 0; i < this.n && this.nb > 0; ++i) {
      const P = this.poses, o = i * this.nb * 7;
      travel = Math.max(travel, Math.hypot(P[o] - P[0], P[o + 1] - P[1], P[o + 2] - P[2]));
    }
    this.follow = travel > 2 * r;
    this.followBox.checked = this.follow;
  }

  renderNow() {
    this.dirty = false;
    this.renderer.render(this.scene, this.camera);
  }
}

function formatValue(v) {
  if (!Number.isFinite(v)) return '–';
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(4) : v.toFixed(5);
}

function showError(e) {
  const div = document.createElement('div');
  div.id = 'mx-error';
  div.textContent = 'maxsim replay: ' + (e && e.message ? e.message : String(e));
  document.body.appendChild(div);
}

async function main() {
  const data = JSON.parse(document.getElementById('maxsim-replay').textContent);
  if (data.format !== 'maxsim-replay-1') throw new Error(`unknown replay format '${data.format}'`);
  const buffer = await decodeBlob(document.getElementById('maxsim-blob').textContent, data.blob_encoding);
  if (buffer.byteLength !== data.blob_bytes) throw new Error(`replay data: ${buffer.byteLength} bytes, expected ${data.blob_bytes}`);
  const viewer = new Viewer(data, buffer);
  return {
    frames: viewer.n,
    duration: viewer.t1 - viewer.t0,
    start: viewer.t0,
    bodies: data.bodies.slice(),
    time: () => viewer.t,
    setTime: (t) => { viewer.setTime(t); viewer.controls.update(); viewer.renderNow(); },
    play: () => viewer.setPlaying(true),
    pause: () => viewer.setPlaying(false),
    setSpeed: (s) => { viewer.speed = s; },
    setRobotVisible: (v) => { viewer.robot.visible = v; viewer.renderNow(); },
    renderNow: () => viewer.renderNow(),
    info: () => ({ frames: viewer.n, bodies: viewer.nb, meshes: data.meshes.length, geoms: data.geoms.length,
      contacts: !!data.contacts, time: viewer.t, playing: viewer.playing }),
  };
}

const ready = main();
window.maxsimViewer = { ready };
ready.then((api) => Object.assign(window.maxsimViewer, api), (e) => { showError(e); console.error(e); });
