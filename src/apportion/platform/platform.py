"""Platform: the devices of a heterogeneous machine (or cluster) and their links; platform files in TOML.

A platform file describes either a simulated set-up (every device `type = "simulated"`, with a performance
model, see `apportion.platform.simulated`) or a real one (`cpu`, `throttled`, `cuda`, `ray` devices). Shipped
files (the seeds' machines) live in `apportion/platforms/` and are loaded by name: `Platform.load("seed000")`.

    name = "my-box"
    description = "one line"
    [[device]]
    name = "gpu0"
    type = "simulated"          # simulated | cpu | throttled | cuda | ray
    role = "gpu"                # simulated only: cpu | gpu
    peak_gflops = 933.0
    efficiency = { default = 0.3, textsearch = 0.2 }
    saturation_gflop = 2.0      # or a table by workload: { default = 2.0, textsearch = 0.001 }
    memory_bandwidth_gbs = 102.0
    launch_latency_us = 10.0
    link = { latency_us = 15.0, bandwidth_gbs = 5.5 }   # host devices have no link

Real devices: `type = "cpu"` (threads), `type = "throttled"` (threads, factor: a slowed CPUDevice),
`type = "cuda"` (index), `type = "ray"` (threads; the cluster comes from `--cluster`/RAY_ADDRESS).
Every error names the file and the key: `platform.toml: device[2].peak_gflops: must be > 0`.
"""

from __future__ import annotations

import math
import tomllib
import warnings
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Sequence

from apportion._atomic import atomic_output
from apportion._registry import Registry
from apportion.checks import thread_pool_size
from apportion.errors import InputError
from apportion.platform.cpu import CPUDevice, host_core_count
from apportion.platform.cuda import CUDADevice, cuda_device_count, cupy_available, nvidia_gpus_present
from apportion.platform.device import Device, LinkCost
from apportion.platform.ray import RayDevice
from apportion.platform.simulated import DeviceModel, SimulatedDevice
from apportion.platform.throttled import ThrottledDevice

# the seeds' machines, shipped as apportion/platforms/<file>
SHIPPED_PLATFORMS: Registry = Registry("shipped platform", {"seed000": "seed000.toml", "seed002": "seed002.toml",
                                                            "seed004": "seed004.toml",
                                                            "local-pair": "local-pair.toml"})
SHIPPED = SHIPPED_PLATFORMS.names()
DEVICE_TYPES = ("simulated", "cpu", "throttled", "cuda", "ray")


@dataclass
class Platform:
    """Devices (in order: index i is device i everywhere: shares, traces) plus host <-> device links.

    `links[name]` is the LinkCost of device `name` (None for host devices); it defaults to each device's own `link`.
    """

    devices: list[Device]
    name: str = "platform"
    description: str = ""
    links: dict[str, LinkCost | None] = field(default_factory=dict)
    source: str | None = None

    def __post_init__(self):
        if not self.devices:
            raise InputError(f"platform {self.name}: no devices")
        names = [d.name for d in self.devices]
        if len(set(names)) != len(names):
            raise InputError(f"platform {self.name}: device names must be unique, got {names}")
        for d in self.devices:
            self.links.setdefault(d.name, d.link)
        kinds = {bool(d.is_simulated) for d in self.devices}
        if len(kinds) > 1:
            raise InputError(f"platform {self.name}: mixes simulated and real devices")

    @property
    def simulated(self) -> bool:
        """True when every device is simulated (runs go to the discrete-event simulator)."""
        return bool(self.devices[0].is_simulated)

    def __len__(self) -> int:
        return len(self.devices)

    def __iter__(self):
        return iter(self.devices)

    def __getitem__(self, index: int) -> Device:
        return self.devices[index]

    def subset(self, names_or_indices: Iterable[int | str], name: str | None = None) -> "Platform":
        """A platform with only some of the devices (e.g. the CPU and one GPU for Qilin)."""
        chosen = []
        for key in names_or_indices:
            if isinstance(key, str):
                matches = [d for d in self.devices if d.name == key]
                if not matches:
                    raise InputError(f"platform {self.name}: no device named {key!r}")
                chosen.append(matches[0])
            else:
                chosen.append(self.devices[int(key)])
        return Platform(chosen, name=name or f"{self.name}-subset", description=self.description)

    def describe(self) -> dict:
        return {"name": self.name, "description": self.description, "simulated": self.simulated,
                "devices": [d.describe() for d in self.devices]}

    def close(self) -> None:
        for d in self.devices:
            d.close()

    # ------------------------------------------------------------------ discovery and files
    @staticmethod
    def detect(cpu_threads: int | None = None) -> "Platform":
        """This machine: one CPUDevice over the host cores (minus one per GPU, which a host thread drives) and a
        CUDADevice per CUDA device (every GPU numba-cuda or CuPy sees; the simulated one under
        NUMBA_ENABLE_CUDASIM=1). Warns (UserWarning, one line) when the driver shows NVIDIA GPUs that are left out
        because CuPy is missing."""
        gpus = cuda_device_count()
        if gpus == 0 and nvidia_gpus_present() and not cupy_available():
            warnings.warn(f"--platform auto: {nvidia_gpus_present()} NVIDIA GPU(s) left out because neither "
                          "numba-cuda nor CuPy can use them (pip install 'apportion[gpu]'); only the CPU is used", stacklevel=2)
        threads = cpu_threads or max(1, min(host_core_count(), thread_pool_size()) - gpus)
        devices: list[Device] = [CPUDevice(threads=threads, name="cpu")]
        devices += [CUDADevice(i) for i in range(gpus)]
        return Platform(devices, name="detected", description=f"this machine: {threads} CPU thread(s), {gpus} GPU(s)")

    @staticmethod
    def load(path_or_name: str | Path) -> "Platform":
        """Read a platform file, or a shipped platform by name (seed000, seed002, seed004, local-pair)."""
        text, label = _read_platform_text(path_or_name)
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise InputError(f"not valid TOML: {exc}", path=label) from None
        return Platform.from_dict(data, source=label)

    @staticmethod
    def from_dict(data: dict, source: str = "<platform>") -> "Platform":
        """Build a platform from parsed TOML; InputError names `source` and the offending key."""
        if not isinstance(data, dict):
            raise InputError("top level must be a table", path=source)
        unknown = set(data) - {"name", "description", "device"}
        if unknown:
            raise InputError(f"unknown key(s) {sorted(unknown)} (expected name, description, [[device]])",
                             path=source)
        entries = data.get("device")
        if not isinstance(entries, list) or not entries:
            raise InputError("needs at least one [[device]] table", path=source)
        devices = [_device_from_entry(entry, i, source) for i, entry in enumerate(entries)]
        name = data.get("name", Path(source).stem)
        if not isinstance(name, str):
            raise InputError("name: must be a string", path=source)
        try:
            return Platform(devices, name=name, description=str(data.get("description", "")), source=source)
        except InputError as exc:
            raise exc.at(source) from None

    def to_toml(self) -> str:
        """The platform as a TOML platform file (round-trips through `load`)."""
        lines = [f"name = {_toml_str(self.name)}", f"description = {_toml_str(self.description)}", ""]
        for d in self.devices:
            lines.append("[[device]]")
            for key, value in _device_entry(d).items():
                lines.append(f"{key} = {_toml_value(value)}")
            lines.append("")
        return "\n".join(lines)

    def save(self, path: str | Path) -> None:
        """Write the platform file atomically."""
        with atomic_output(path, "w") as handle:
            handle.write(self.to_toml())


def resolve_platform(spec: str | Path | Platform | Sequence[Device]) -> Platform:
    """A Platform from a Platform, a list of devices, "auto", "cuda" (every CUDA device of this machine, the
    CUDA simulator's included; UnavailableError when there is none), a shipped name or a file path."""
    if isinstance(spec, Platform):
        return spec
    if isinstance(spec, (list, tuple)):
        return Platform(list(spec))
    if str(spec) == "auto":
        return Platform.detect()
    if str(spec) == "cuda":
        devices = [CUDADevice(i) for i in range(cuda_device_count())]
        if not devices:
            CUDADevice(0)  # raises UnavailableError saying why there is none
        return Platform(devices, name="cuda", description=f"this machine's {len(devices)} CUDA device(s)")
    return Platform.load(spec)


# ---------------------------------------------------------------------- helpers
def _read_platform_text(path_or_name: str | Path) -> tuple[str, str]:
    text_name = str(path_or_name)
    if text_name in SHIPPED_PLATFORMS:
        file_name = SHIPPED_PLATFORMS[text_name]
        return resources.files("apportion").joinpath("platforms", file_name).read_text(encoding="utf-8"), file_name
    path = Path(path_or_name)
    if not path.is_file():
        raise InputError(f"platform file not found (shipped platforms: {', '.join(SHIPPED)}, or 'auto')",
                         path=str(path))
    try:
        return path.read_text(encoding="utf-8"), str(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", path=str(path)) from None


_SIM_KEYS = {"name", "type", "role", "peak_gflops", "efficiency", "saturation_gflop", "memory_bandwidth_gbs",
             "launch_latency_us", "link"}
_REAL_KEYS = {"cpu": {"name", "type", "threads", "peak_gflops"},
              "throttled": {"name", "type", "threads", "factor", "peak_gflops"},
              "cuda": {"name", "type", "index"},
              "ray": {"name", "type", "threads"}}


def _number(entry: dict, key: str, where: str, source: str, default=None, positive=True, allow_zero=False,
            integer=False, at_least=None):
    """entry[key] as a float (`default` when absent; missing is an error without one): a finite number (TOML
    allows inf and nan), > 0 (or >= 0 with `allow_zero`), whole with `integer`, >= `at_least` when given."""
    if key not in entry:
        if default is None:
            raise InputError(f"{where}.{key}: missing", path=source)
        return default
    value = entry[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{where}.{key}: must be a number, got {value!r}", path=source)
    if not math.isfinite(value):
        raise InputError(f"{where}.{key}: must be finite, got {value}", path=source)
    if integer and value != int(value):
        raise InputError(f"{where}.{key}: must be a whole number, got {value}", path=source)
    if positive and not (value > 0 or (allow_zero and value == 0)):
        raise InputError(f"{where}.{key}: must be {'>= 0' if allow_zero else '> 0'}, got {value}", path=source)
    if at_least is not None and value < at_least:
        raise InputError(f"{where}.{key}: must be >= {at_least:g}, got {value}", path=source)
    return float(value)


def _device_from_entry(entry: Any, index: int, source: str) -> Device:
    where = f"device[{index}]"
    if not isinstance(entry, dict):
        raise InputError(f"{where}: must be a table", path=source)
    kind = entry.get("type")
    if kind not in DEVICE_TYPES:
        raise InputError(f"{where}.type: must be one of {', '.join(DEVICE_TYPES)}, got {kind!r}", path=source)
    name = entry.get("name", f"{kind}{index}")
    if not isinstance(name, str) or not name:
        raise InputError(f"{where}.name: must be a non-empty string", path=source)
    allowed = _SIM_KEYS if kind == "simulated" else _REAL_KEYS[kind]
    unknown = set(entry) - allowed
    if unknown:
        raise InputError(f"{where}: unknown key(s) {sorted(unknown)} for type {kind!r}", path=source)
    if kind == "simulated":
        return _simulated_from_entry(entry, name, where, source)
    try:
        if kind in ("cpu", "throttled"):
            threads = int(_number(entry, "threads", where, source, default=1, integer=True))
            peak = entry.get("peak_gflops")
            cpu = CPUDevice(threads=threads, name=name if kind == "cpu" else f"{name}-inner",
                            peak_flops=None if peak is None else _number(entry, "peak_gflops", where, source) * 1e9)
            if kind == "cpu":
                return cpu
            return ThrottledDevice(cpu, _number(entry, "factor", where, source, at_least=1.0), name=name)
        if kind == "cuda":
            index = _number(entry, "index", where, source, default=0, allow_zero=True, integer=True)
            return CUDADevice(int(index), name=name)
        return RayDevice(name=name, threads=int(_number(entry, "threads", where, source, default=1, integer=True)))
    except InputError as error:
        if error.path is not None:
            raise
        # a device's own check (threads beyond this machine's, ...): named by file and entry like the rest
        raise InputError(f"{where}: {error.problem}", path=source) from None


def _simulated_from_entry(entry: dict, name: str, where: str, source: str) -> Device:
    role = entry.get("role", "cpu")
    if role not in ("cpu", "gpu"):
        raise InputError(f"{where}.role: must be 'cpu' or 'gpu', got {role!r}", path=source)
    efficiency = entry.get("efficiency", {"default": 1.0})
    if isinstance(efficiency, (int, float)) and not isinstance(efficiency, bool):
        efficiency = {"default": float(efficiency)}
    if not isinstance(efficiency, dict):
        raise InputError(f"{where}.efficiency: must be a number or a table", path=source)
    for key, value in efficiency.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
            raise InputError(f"{where}.efficiency.{key}: must be a number in (0, 1], got {value!r}", path=source)
    link = None
    if "link" in entry:
        raw = entry["link"]
        if not isinstance(raw, dict) or set(raw) - {"latency_us", "bandwidth_gbs"}:
            raise InputError(f"{where}.link: must be a table with latency_us and bandwidth_gbs", path=source)
        link = LinkCost(latency_s=_number(raw, "latency_us", f"{where}.link", source, allow_zero=True) * 1e-6,
                    bandwidth_Bps=_number(raw, "bandwidth_gbs", f"{where}.link", source) * 1e9)
    saturation = entry.get("saturation_gflop", 0.0)
    overrides = {}
    if isinstance(saturation, dict):
        for key, value in saturation.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise InputError(f"{where}.saturation_gflop.{key}: must be a number >= 0, got {value!r}", path=source)
        overrides = {k: float(v) * 1e9 for k, v in saturation.items() if k != "default"}
        saturation = saturation.get("default", 0.0)
    model = DeviceModel(role=role,
                        peak_flops=_number(entry, "peak_gflops", where, source) * 1e9,
                        efficiency={k: float(v) for k, v in efficiency.items()},
                        saturation_flops=_number({"saturation_gflop": saturation}, "saturation_gflop", where,
                                                 source, allow_zero=True) * 1e9,
                        saturation_by_workload=overrides,
                        memory_bandwidth_Bps=_number(entry, "memory_bandwidth_gbs", where, source) * 1e9,
                        launch_latency_s=_number(entry, "launch_latency_us", where, source, default=0.0,
                                                 allow_zero=True) * 1e-6,
                        link=link)
    return SimulatedDevice(model, name=name)


def _device_entry(device: Device) -> dict:
    if isinstance(device, SimulatedDevice):
        m = device.model
        out: dict[str, Any] = {"name": device.name, "type": "simulated", "role": m.role,
                               "peak_gflops": m.peak_flops / 1e9, "efficiency": dict(m.efficiency),
                               "saturation_gflop": m.saturation_flops / 1e9 if not m.saturation_by_workload
                               else {"default": m.saturation_flops / 1e9,
                                     **{k: v / 1e9 for k, v in m.saturation_by_workload.items()}},
                               "memory_bandwidth_gbs": m.memory_bandwidth_Bps / 1e9,
                               "launch_latency_us": m.launch_latency_s * 1e6}
        if m.link is not None:
            out["link"] = {"latency_us": m.link.latency_s * 1e6, "bandwidth_gbs": m.link.bandwidth_Bps / 1e9}
        return out
    if isinstance(device, ThrottledDevice) and isinstance(device.inner, CPUDevice):
        return {"name": device.name, "type": "throttled", "threads": device.inner.threads, "factor": device.factor}
    if isinstance(device, CPUDevice):
        return {"name": device.name, "type": "cpu", "threads": device.threads}
    if device.kind == "gpu":
        return {"name": device.name, "type": "cuda", "index": getattr(device, "index", 0)}
    if device.kind == "remote":
        return {"name": device.name, "type": "ray", "threads": getattr(device, "threads", 1)}
    raise InputError(f"device {device.name}: cannot be written to a platform file")


def _toml_str(text: str) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return _toml_str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(float(value))  # a NumPy float's repr is "np.float64(…)", not TOML
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(value)
