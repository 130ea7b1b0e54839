"""A vector env that steps several sub-envs per worker process per message (``PooledVectorEnv``).

Gymnasium's ``AsyncVectorEnv`` runs one sub-env per process and pays a pipe round trip per sub-env per step. On
the 2-core development machine that round trip (plus pickling the observations and merging the infos) costs
about 0.74 ms a vector step with *no* env work, about as much as a whole ``LiveStreamQA-v1`` step, so
``AsyncVectorEnv(2)`` is slower than one env (docs/performance.md, "Vector envs"). ``PooledVectorEnv`` gives
each of ``num_workers`` processes a contiguous slice of the sub-envs and exchanges one message per worker per
step, so the fixed cost is paid once per slice (EnvPool's and PufferLib's design, in plain Python).

It returns exactly what ``SyncVectorEnv`` over the same env functions returns (observations, rewards,
terminations, truncations and infos, with next-step autoreset; tested), so a training loop can swap one for the
other::

    import gymnasium as gym, livesim
    from livesim.envs.vector import PooledVectorEnv

    envs = PooledVectorEnv([lambda: gym.make("LiveStreamQA-v1") for _ in range(16)], num_workers=2)
    obs, infos = envs.reset(seed=0)
    obs, rewards, terminations, truncations, infos = envs.step(["Hi! Let me check."] * 16)
    envs.close()

``call``/``get_attr`` reach the sub-envs as in Gymnasium's vector envs (e.g. the oracle inside workers,
docs/agents.md). Limits: next-step autoreset only; ``reset(options={"reset_mask": ...})`` is not supported;
every ``step`` waits for every worker (a lockstep API, like Sync/Async).
"""

from __future__ import annotations

import multiprocessing as mp
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import cloudpickle
import numpy as np
from gymnasium import Env
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array, iterate


def _worker(remote: Any, parent: Any, fns_pickled: bytes) -> None:
    parent.close()
    envs: list[Env] = []
    try:
        envs = [fn() for fn in cloudpickle.loads(fns_pickled)]
        autoreset = [False] * len(envs)
        remote.send(("ok", (envs[0].observation_space, envs[0].action_space, dict(envs[0].metadata),
                            envs[0].render_mode)))
        while True:
            cmd, data = remote.recv()
            if cmd == "reset":
                seeds, options = data
                out = [env.reset(seed=s, options=options) for env, s in zip(envs, seeds, strict=True)]
                autoreset = [False] * len(envs)
                remote.send(("ok", out))
            elif cmd == "step":
                results: list[tuple[Any, ...]] = []
                for i, (env, action) in enumerate(zip(envs, data, strict=True)):
                    if autoreset[i]:  # NEXT_STEP autoreset, as SyncVectorEnv: this step only resets
                        obs, info = env.reset()
                        results.append((obs, 0.0, False, False, info))
                    else:
                        results.append(env.step(action))
                    autoreset[i] = bool(results[-1][2] or results[-1][3])
                remote.send(("ok", results))
            elif cmd == "call":
                name, args, kwargs = data
                out = []
                for env in envs:
                    attr = env.get_wrapper_attr(name)
                    out.append(attr(*args, **kwargs) if callable(attr) else attr)
                remote.send(("ok", out))
            elif cmd == "close":
                remote.send(("ok", None))
                break
            else:
                raise RuntimeError(f"unknown command {cmd!r}")
    except (KeyboardInterrupt, EOFError):
        pass
    except Exception as e:  # noqa: BLE001 - reported to the main process, which raises it there
        try:
            remote.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"))
        except (BrokenPipeError, EOFError):
            pass
    finally:
        for env in envs:
            env.close()
        remote.close()


class PooledVectorEnv(VectorEnv):  # type: ignore[type-arg]
    """``num_envs = len(env_fns)`` sub-envs in ``num_workers`` processes, one message per worker per step.

    Args:
        env_fns: functions that build the sub-envs (as for ``SyncVectorEnv``); worker ``w`` builds a contiguous
            slice of them.
        num_workers: worker processes (at most ``len(env_fns)``).
        context: multiprocessing start method (``None``: the platform default).
        copy: unused (each step's observations come through a pipe, so they are always fresh objects); accepted
            for signature compatibility with Gymnasium's vector envs.

    """

    def __init__(self, env_fns: Sequence[Callable[[], Env]], num_workers: int = 2, context: str | None = None,
                 copy: bool = True) -> None:
        super().__init__()
        if not env_fns:
            raise ValueError("PooledVectorEnv needs at least one env function")
        if not 1 <= num_workers <= len(env_fns):
            raise ValueError(f"num_workers must be between 1 and the number of envs ({len(env_fns)}), "
                             f"got {num_workers}")
        self.num_envs = len(env_fns)
        self.num_workers = num_workers
        self.autoreset_mode = AutoresetMode.NEXT_STEP
        bounds = np.linspace(0, self.num_envs, num_workers + 1).round().astype(int)
        self._slices = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
        ctx: Any = mp.get_context(context)
        self._remotes: list[Any] = []
        self._procs: list[Any] = []
        self.closed = False
        for a, b in self._slices:
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_worker, args=(child, parent, cloudpickle.dumps(list(env_fns[a:b]))),
                               daemon=True, name=f"PooledVectorEnv-worker-{len(self._procs)}")
            proc.start()
            child.close()
            self._remotes.append(parent)
            self._procs.append(proc)
        first = self._receive()[0]
        obs_space, act_space, metadata, render_mode = first
        self.single_observation_space, self.single_action_space = obs_space, act_space
        self.observation_space = batch_space(obs_space, self.num_envs)
        self.action_space = batch_space(act_space, self.num_envs)
        self.metadata = {**metadata, "autoreset_mode": self.autoreset_mode}
        self.render_mode = render_mode

    # -------------------------------------------------------------------------------------------- protocol
    def _receive(self) -> list[Any]:
        out, errors = [], []
        for w, remote in enumerate(self._remotes):
            try:
                status, payload = remote.recv()
            except EOFError:
                status, payload = "error", "the worker process exited"
            if status == "error":
                errors.append(f"worker {w}: {payload}")
            out.append(payload)
        if errors:
            self.close(terminate=True)
            raise RuntimeError("PooledVectorEnv: a sub-env failed; the pool is closed.\n" + "\n".join(errors))
        return out

    def _send(self, cmd: str, per_worker: list[Any]) -> None:
        if self.closed:
            raise RuntimeError("PooledVectorEnv: the pool is closed")
        for remote, data in zip(self._remotes, per_worker, strict=True):
            remote.send((cmd, data))

    def _gather(self, per_env: list[tuple[Any, ...]]) -> tuple[Any, dict[str, Any]]:
        """The sub-envs' observations batched and their infos merged (Gymnasium's ``_add_info``, in env order)."""
        out: Any = create_empty_array(self.single_observation_space, self.num_envs)
        obs = concatenate(self.single_observation_space, [r[0] for r in per_env], out)
        infos: dict[str, Any] = {}
        for i, r in enumerate(per_env):
            infos = self._add_info(infos, r[-1], i)
        return obs, infos

    # ------------------------------------------------------------------------------------------------- API
    def reset(self, *, seed: int | list[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset every sub-env; ``seed`` as ``SyncVectorEnv`` (an int seeds sub-env ``i`` with ``seed + i``)."""
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
        if len(seeds) != self.num_envs:
            raise ValueError(f"If seeds are passed as a list the length must match num_envs={self.num_envs} but got "
                             f"length={len(seeds)}.")
        if options and "reset_mask" in options:
            raise ValueError("PooledVectorEnv does not support options['reset_mask']; reset every sub-env")
        self._send("reset", [(seeds[a:b], options) for a, b in self._slices])
        per_env = [r for chunk in self._receive() for r in chunk]
        return self._gather(per_env)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-env with its action (next-step autoreset, as ``SyncVectorEnv``)."""
        acts = list(iterate(self.action_space, actions))
        if len(acts) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions, got {len(acts)}")
        self._send("step", [acts[a:b] for a, b in self._slices])
        per_env = [r for chunk in self._receive() for r in chunk]
        obs, infos = self._gather(per_env)
        rewards = np.array([r[1] for r in per_env], dtype=np.float64)
        terms = np.array([r[2] for r in per_env], dtype=np.bool_)
        truncs = np.array([r[3] for r in per_env], dtype=np.bool_)
        return obs, rewards, terms, truncs, infos

    def call(self, name: str, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Call method ``name`` of every sub-env (or read the attribute, if it is not callable), as
        ``SyncVectorEnv.call``: e.g. ``envs.step(envs.call("oracle_action"))`` with envs built by
        ``livesim.agents.oracle.with_oracle``.
        """
        self._send("call", [(name, args, kwargs)] * self.num_workers)
        return tuple(r for chunk in self._receive() for r in chunk)

    def get_attr(self, name: str) -> tuple[Any, ...]:
        """Attribute ``name`` of every sub-env."""
        return self.call(name)

    def close_extras(self, terminate: bool = False, **kwargs: Any) -> None:
        if not terminate:
            for remote in self._remotes:
                try:
                    remote.send(("close", None))
                    remote.recv()
                except (BrokenPipeError, EOFError, OSError):
                    pass
        for proc in self._procs:
            proc.join(timeout=1 if not terminate else 0.1)
            if proc.is_alive():
                proc.terminate()
                proc.join()
        for remote in self._remotes:
            remote.close()

    def close(self, **kwargs: Any) -> None:
        if self.closed:
            return
        self.close_extras(**kwargs)
        self.closed = True
