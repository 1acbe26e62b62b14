"""Gym-style environments over maxsim: the Gymnasium API shape without needing gymnasium.

``MaxsimEnv`` drives any description with actuators: the action is one command per actuator
(``Data.ctrl``, clipped to the actuators' ctrl ranges), the observation MuJoCo's ``qpos`` and
``qvel`` (floating bases without their x, y: gym's convention for locomotion), one action is held
for ``frame_skip`` steps. ``A1WalkEnv`` is the Unitree A1 walking forward (the MJCF of MuJoCo
Menagerie with its position servos). When the gymnasium package is importable both are
registered (``maxsim/Generic-v0`` with ``model=...``, ``maxsim/A1Walk-v0``)::

    env = maxsim.env.A1WalkEnv()
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

The contract is Gymnasium's: ``reset(seed=...)`` returns ``(obs, info)`` and re-seeds the
environment's generator (``self.np_random``), ``step(action)`` returns ``(obs, reward,
terminated, truncated, info)``; ``observation_space`` and ``action_space`` are ``Box`` objects
with ``shape``, ``dtype``, ``low``, ``high``, ``sample()`` and ``contains()``. Runs are
deterministic: the same seed and actions give the same observations to the last bit (a reset
Data runs as a new one, sim/state/state.hpp). ``step``'s ``info`` counts the ``frame_skip``
engine steps of the action (their StepSummary): ``iterations`` (all of them), ``iterations_max``,
``not_converged_steps``, ``relaxed_steps``, ``failed_steps``, and ``time``.
"""

import os

import numpy as np

from . import _maxsim


class Box:
    """A box in R^n (Gymnasium's ``spaces.Box`` shape): bounds per entry, ±inf for none."""

    def __init__(self, low, high, shape=None, dtype=np.float64, seed=None):
        self.dtype = np.dtype(dtype)
        if shape is None:
            shape = np.shape(low)
        self.shape = tuple(int(n) for n in shape)
        self.low = np.broadcast_to(np.asarray(low, dtype=self.dtype), self.shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=self.dtype), self.shape).copy()
        if np.any(self.low > self.high):
            raise ValueError("Box: low > high")
        self.np_random = np.random.default_rng(seed)

    def seed(self, seed=None):
        self.np_random = np.random.default_rng(seed)

    def sample(self):
        """Uniform within finite bounds; standard normal (shifted) where a side is unbounded."""
        low, high = self.low, self.high
        out = np.empty(self.shape, dtype=self.dtype)
        both = np.isfinite(low) & np.isfinite(high)
        out[both] = self.np_random.uniform(low[both], high[both])
        lo_only = np.isfinite(low) & ~np.isfinite(high)
        out[lo_only] = low[lo_only] + self.np_random.exponential(size=int(lo_only.sum()))
        hi_only = ~np.isfinite(low) & np.isfinite(high)
        out[hi_only] = high[hi_only] - self.np_random.exponential(size=int(hi_only.sum()))
        neither = ~np.isfinite(low) & ~np.isfinite(high)
        out[neither] = self.np_random.normal(size=int(neither.sum()))
        return out

    def contains(self, x):
        x = np.asarray(x)
        return x.shape == self.shape and bool(np.all(x >= self.low)) and bool(np.all(x <= self.high))

    def __repr__(self):
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"


class MaxsimEnv:
    """A description with actuators as an environment.

    model: a ``maxsim.Model`` or a path to load. keyframe: the name of the keyframe every episode
    starts from (its ctrl included), else the model's own pose at rest. reset_noise_scale: uniform
    noise of this half-width added to qpos (quaternions renormalised) and qvel at each reset.
    max_episode_steps: ``truncated`` after this many calls of step(). contacts: as for
    ``maxsim.Data``. observe: what the observation holds — "state" (qpos without a floating
    base's x, y, then qvel), "sensors" (``Data.sensordata``: the model's sensors, as dm_control's
    tasks observe them) or "state+sensors" (both, in that order). Subclasses give tasks by
    overriding ``reward``, ``is_terminated`` and ``observation``; the base environment's reward is
    0 and it never terminates but on a failed step.
    """

    metadata = {"render_modes": []}
    render_mode = None

    def __init__(self, model, *, frame_skip=1, keyframe=None, reset_noise_scale=0.0,
                 max_episode_steps=1000, contacts=None, observe="state"):
        if isinstance(model, (str, os.PathLike)):
            from . import load
            model = load(model, warn=False)
        self.model = model
        if model.nu == 0:
            raise ValueError(f"model '{model.name}' has no actuators to act through")
        if int(frame_skip) < 1:
            raise ValueError("frame_skip must be >= 1")
        if observe not in ("state", "sensors", "state+sensors"):
            raise ValueError(f"observe must be 'state', 'sensors' or 'state+sensors', got {observe!r}")
        if observe != "state" and model.nsensordata == 0:
            raise ValueError(f"observe={observe!r}: model '{model.name}' has no sensors")
        self.observe = observe
        self.frame_skip = int(frame_skip)
        self.keyframe = -1
        if keyframe is not None:
            self.keyframe = model.keyframe_index(keyframe)  # KeyError naming the close matches
        self.reset_noise_scale = float(reset_noise_scale)
        self.max_episode_steps = int(max_episode_steps)
        self.data = _maxsim.Data(model) if contacts is None else _maxsim.Data(model, contacts)
        self.dt = model.dt * self.frame_skip  # time per environment step
        low = np.full(model.nu, -np.inf)
        high = np.full(model.nu, np.inf)
        for i, a in enumerate(model.actuators):
            if a.ctrl_limited:
                low[i], high[i] = a.ctrl_lower, a.ctrl_upper
        self.action_space = Box(low, high)
        self._free = [j for j in range(len(model.joints))
                      if model.joints[j].type == _maxsim.JointType.Floating]
        self._reset_state()
        obs = self.observation()
        self.observation_space = Box(-np.inf, np.inf, shape=obs.shape)
        self.np_random = np.random.default_rng()
        self._steps = 0

    # ---- the task: override these -----------------------------------------------------------
    def observation(self):
        """qpos (without a floating base's x, y when the first joint is floating) and qvel, and/or
        the sensors' values (``observe``)."""
        parts = []
        if self.observe != "sensors":
            qpos = self.data.qpos
            if self._free and self._free[0] == 0:
                qpos = qpos[2:]
            parts += [qpos, self.data.qvel]
        if self.observe != "state":
            parts.append(self.data.sensordata)
        return np.concatenate(parts).astype(np.float64)

    def reward(self, action, x_before):
        """The reward of the last step; ``x_before``: the bodies' positions before it (a copy)."""
        return 0.0

    def is_terminated(self):
        return False

    # ---- the Gymnasium API ------------------------------------------------------------------
    def _reset_state(self):
        if self.keyframe >= 0:
            _maxsim.reset_data(self.model, self.data, self.keyframe)
        else:
            _maxsim.reset_data(self.model, self.data)
        _maxsim.update_sensors(self.model, self.data)  # (the sensors a state gives)

    def reset(self, *, seed=None, options=None):
        """Starts an episode; ``seed`` re-seeds the generator (and the action space's).

        options: {"qpos": ..., "qvel": ...} replace the start state (before the noise).
        """
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
            self.action_space.seed(int(self.np_random.integers(2**31)))
        self._reset_state()
        options = options or {}
        qpos = np.array(options.get("qpos", self.data.qpos), dtype=np.float64)
        qvel = np.array(options.get("qvel", self.data.qvel), dtype=np.float64)
        if self.reset_noise_scale > 0:
            s = self.reset_noise_scale
            qpos = qpos + self.np_random.uniform(-s, s, size=qpos.shape)
            qvel = qvel + self.np_random.uniform(-s, s, size=qvel.shape)
            self._normalise_quaternions(qpos)
        if "qpos" in options or "qvel" in options or self.reset_noise_scale > 0:
            _maxsim.set_qpos_qvel(self.model, self.data, qpos, qvel)
            _maxsim.update_sensors(self.model, self.data)
        self._steps = 0
        return self.observation(), {"time": self.data.time}

    def _normalise_quaternions(self, qpos):
        at = 0
        tree = _maxsim.spanning_tree_joints(self.model)
        for j, joint in enumerate(self.model.joints):
            if not tree[j]:
                continue
            n = joint.nq
            if joint.nq > joint.dof:  # a quaternion (a body's merged hinges are angles)
                quat = qpos[at + n - 4: at + n]
                quat /= np.linalg.norm(quat)
            at += n

    def step(self, action):
        action = np.asarray(action, dtype=np.float64)
        if action.shape != self.action_space.shape:
            raise ValueError(f"action has shape {action.shape}, the environment takes {self.action_space.shape}")
        if not np.all(np.isfinite(action)):
            raise ValueError("action has a non-finite value")
        x_before = np.array(self.data.x)
        self.data.ctrl[:] = np.clip(action, self.action_space.low, self.action_space.high)
        report = _maxsim.step(self.model, self.data, self.frame_skip)  # a StepSummary of the frame_skip steps
        self._steps += 1
        failed = report.failed_steps > 0
        obs = self.observation()
        finite = bool(np.all(np.isfinite(obs)))
        reward = float(self.reward(action, x_before)) if finite else 0.0
        terminated = failed or not finite or bool(self.is_terminated())
        truncated = not terminated and self._steps >= self.max_episode_steps
        # every engine step of this environment step counted, not only the last one's
        info = {"time": self.data.time, "iterations": report.iterations_total,
                "iterations_max": report.iterations_max, "not_converged_steps": report.not_converged_steps,
                "relaxed_steps": report.relaxed_steps, "failed_steps": report.failed_steps}
        if failed or not finite:
            info["failure"] = "the step failed" if failed else "the state is not finite"
        return obs, reward, terminated, truncated, info

    def close(self):
        pass


def robots_dir():
    """Where the robot descriptions are: $MAXSIM_ROBOTS, the source tree, or the install's share."""
    candidates = [os.environ.get("MAXSIM_ROBOTS", "")]
    try:
        from . import _paths
        candidates += list(_paths.ROBOTS_DIRS)
    except ImportError:
        pass
    for c in candidates:
        if c and os.path.isdir(c):
            return c
    raise FileNotFoundError("maxsim's robots/ directory was not found (set MAXSIM_ROBOTS)")


class A1WalkEnv(MaxsimEnv):
    """The Unitree A1 walking forward (+x): MuJoCo Menagerie's MJCF, its 12 position servos.

    The action is the servo targets (rad, within the joints' ctrl ranges), held for frame_skip
    steps of the file's time step (it gives none: MuJoCo's 0.002 s). Reward per step: forward
    speed of the trunk + 0.5 while healthy − 0.01·|a − home|² (a target far from the standing
    pose costs). Terminated when the trunk drops below
    0.15 m or tilts beyond 60°. Observation: qpos without the trunk's x, y, and qvel (35 values).
    """

    def __init__(self, *, frame_skip=2, reset_noise_scale=0.01, max_episode_steps=500):
        path = os.path.join(robots_dir(), "a1", "menagerie_variant", "scene.xml")
        super().__init__(path, frame_skip=frame_skip, keyframe="home", reset_noise_scale=reset_noise_scale,
                         max_episode_steps=max_episode_steps)
        self.home = np.array(self.model.keyframes[self.keyframe].ctrl, dtype=np.float64)
        self.trunk = self.model.body_index("trunk")

    def reward(self, action, x_before):
        forward = (self.data.x[self.trunk, 0] - x_before[self.trunk, 0]) / self.dt
        return forward + 0.5 - 0.01 * float(np.sum((action - self.home) ** 2))

    def is_terminated(self):
        w, x, y, z = self.data.q[self.trunk]
        up = 1.0 - 2.0 * (x * x + y * y)  # the trunk's z axis along the world's z
        return bool(self.data.x[self.trunk, 2] < 0.15 or up < 0.5)


def _register():
    try:
        import gymnasium
    except ImportError:
        return
    for name, entry in (("maxsim/Generic-v0", "maxsim.env:MaxsimEnv"), ("maxsim/A1Walk-v0", "maxsim.env:A1WalkEnv")):
        if name not in gymnasium.registry:
            gymnasium.register(id=name, entry_point=entry)


_register()
