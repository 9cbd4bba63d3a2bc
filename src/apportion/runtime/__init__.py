"""apportion.runtime: the asynchronous multi-device runtime of seed 003 (Groute) — the layer between the
schedule and the apps (DESIGN.md). One concept per module, each naming its paper section:

- `endpoint.Endpoint` (§3): the host, a device or a router;
- `link.Link`, `link.Segment` (§3, §4.1-4.2): one-way multiple-buffered channels whose send/receive return
  futures; `shutdown()` -> an empty segment; `release()` hands a buffer back;
- `router.Router` (§3, §4.2): policy-chosen outputs, first available one wins, packets interleaved;
- `policies` (§4.3): `ring` (the default), `direct`, `any_device`;
- `worklist` (§4.3): the device-local worklist (compiled queue + deferred list) and the inbox;
- `distributed_worklist` (§4.3, Figs. 9-10): the apps' worklist programs, `RunResult`, failure recovery;
- `split` (§4.3): SplitSend and SplitReceive, compiled;
- `termination.WorkCounter` (§4.3): work counting, count before send;
- `priority.SoftPriority` (§4.4): the system-wide threshold raised by Δ;
- `placement.place` (§4.5, §4.6.1): which device owns which vertex;
- `transports.threads` (§4.3, §4.6.4): a worker and a receiver thread per device; `transports.ray` (§3.1): an
  actor per device, the driver as host and router;
- `scatter` (§3 Figs. 5-6, §5.1.4): segments to the first free device (topology-driven CC, PBF), on threads or
  on Ray actors (`transports.ray_scatter`).

See docs/runtime.md.
"""
