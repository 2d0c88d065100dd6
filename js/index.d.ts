/**
 * Typings for the `k6/x/dnecho` module of dnecho (`dnecho run`).
 *
 * The module sends Ozone DataNode Echo RPCs (the `ozone freon dn-echo` call) from k6-style scripts.
 * A Client is declared in the init context; the SCM lookup (container → pipeline → DataNodes, and the
 * container token) runs once per test run and is shared by every VU, as are the gRPC connections.
 *
 * Metrics of every call of echo() or echoAsync(), failures included (interrupted calls are not measured):
 * - `dnecho_req_duration` (Trend, ms): round-trip time of one call, retries included;
 * - `dnecho_reqs` (Counter): calls;
 * - `dnecho_req_failed` (Rate): 1 for a failed call, 0 for SUCCESS;
 * - `dnecho_data_sent`, `dnecho_data_received` (Counter, bytes): protobuf message bytes, also counted in
 *   the iteration's `data_sent` / `data_received`;
 * - `dnecho_attempt_duration` (Trend, ms): only for a call retried on other DataNodes (gRPC), one sample
 *   per attempt: its own part of the call's `dnecho_req_duration`, tagged with the DataNode it went to
 *   and its own `result` (the per-DataNode block counts each attempt at its DataNode).
 *
 * Tags of those samples: the VU's tags (scenario, group, exec.vu.metrics.tags, run tags), then the
 * Client's `tags`, then `datanode` (uuid of the DataNode that answered or failed last; with `ratis` the
 * leader), `container`, `pipeline`, `result` (see {@link EchoResult.result}), `stream` (`new` | `reuse`)
 * and `mode` (`grpc` | `ratis-read` | `ratis-write`), `attempts` (the DataNodes tried, only on a call
 * that tried more than one), then the call's `tags`. Later ones win on equal names.
 *
 * Metrics of the network watch, which starts at a Client's first call and reads the kernel's view of
 * each DataNode connection every 250 ms (Linux), one sample per DataNode with a live connection; tags:
 * the run's and the Client's, then `datanode`, `container`, `stream`:
 * - `dnecho_tcp_rtt` (Trend, ms): the smoothed TCP round-trip time (`tcpi_rtt`) to the DataNode, the
 *   mean over its connections: the network's share of `dnecho_req_duration`;
 * - `dnecho_tcp_retransmits` (Counter): TCP segments retransmitted to the DataNode since the previous
 *   sample.
 *
 * Metrics of the run:
 * - `dnecho_slow_datanodes` (Gauge; the run's tags): DataNodes the slow-DataNode verdict names (a p99
 *   more than `--slow-factor` times the others' median p99), set every 2 s during the test and at its
 *   end, so that `thresholds: { dnecho_slow_datanodes: ['value==0'] }` fails (or, with abortOnFail,
 *   stops) a run on a slow DataNode;
 * - `dnecho_iteration_start_delay` (Trend, ms; the run's tags and `scenario`): how late each iteration
 *   of an arrival-rate scenario started after its scheduled time: a load generator that falls behind
 *   shows here before it drops iterations.
 *
 * Editors find this module's types through `paths` in a jsconfig.json or tsconfig.json:
 * `"paths": { "k6/x/dnecho": ["<dnecho>/js/index.d.ts"] }`, with `@types/k6` installed for the k6
 * modules (examples/jsconfig.json and examples/tsconfig.json are ready-made).
 *
 * @example
 * // examples/quickstart.js
 * import { check } from 'k6';
 * import dnecho from 'k6/x/dnecho';
 *
 * export const options = {
 *   vus: Number(__ENV.VUS || 8),
 *   duration: __ENV.DURATION || '30s',
 *   thresholds: {
 *     dnecho_req_failed: ['rate<0.01'],
 *     checks: ['rate>0.99'],
 *   },
 * };
 *
 * // Without scm/conf the cluster comes from `--local-cluster`, else from OZONE_CONF_DIR.
 * const client = new dnecho.Client({
 *   containerId: Number(__ENV.CONTAINER_ID || 1),
 *   scm: __ENV.DNECHO_SCM,
 *   conf: __ENV.DNECHO_CONF,
 * });
 *
 * export default function () {
 *   const r = client.echo({ payloadResp: '1KB' });
 *   check(r, {
 *     'echo ok': (r) => r.ok,
 *     'answered within 100ms': (r) => r.rtt < 100,
 *   });
 * }
 */
declare module 'k6/x/dnecho' {
  /** Where the Client sends requests among the container's pipeline members. */
  export type Target =
    /** The first pipeline member (Java client order), retrying on the others on failure. Default. */
    | 'first'
    /** Round-robin over every replica; no retries, so each DataNode's failures stay visible. */
    | 'all'
    /** One DataNode, by uuid, host (ipAddress or hostName) or host:port. */
    | string;

  /** How requests use gRPC streams. */
  export type StreamMode =
    /** A new bidirectional stream per request, half-closed after the request (what Ozone's Java client does). Default. */
    | 'new'
    /** Long-lived streams per connection, requests sent one after another on each. */
    | 'reuse';

  /** The client that carries the gRPC calls; both send the same bytes and report the same results. */
  export type Transport =
    /** grpc-go. Default. */
    | 'grpc'
    /**
     * dnecho's own HTTP/2 client for the Echo exchange: one reader and one writer per connection,
     * nothing allocated per call, 0.3–0.4x grpc-go's CPU per call (docs/h2-transport.md).
     */
    | 'h2';

  /**
   * A size in bytes (a whole number), or a string with a unit, case-insensitive: '512B', '4KB' (= '4KiB' =
   * 4096: freon's KB is KiB), '2MB' (= '2MiB' = 2097152), '1GB'. Fractions are rejected.
   */
  export type Size = number | string;

  /**
   * A duration: a string such as '30s', '500ms', '1m30s', or a number of milliseconds. Must be positive.
   */
  export type Duration = string | number;

  /**
   * Options of `new dnecho.Client(...)`. They are validated strictly: an unknown key, a wrong type or a bad
   * value throws in the init context (the run ends with exit code 107), naming the option. A key whose
   * value is `undefined` or `null` counts as absent, so `scm: __ENV.DNECHO_SCM` works whether the
   * variable is set or not.
   */
  export interface ClientOptions {
    /** Container whose pipeline is echoed to: a positive whole number. Required. */
    containerId: number;
    /**
     * SCM address(es) `host:port` (port 9860 when omitted), comma-separated or as an array for SCM HA.
     * When neither `scm` nor `conf` is given: the cluster of `dnecho run --local-cluster`, else the
     * directory in the OZONE_CONF_DIR environment variable, else an error.
     */
    scm?: string | string[];
    /** Directory holding ozone-site.xml (like `ozone --conf`). */
    conf?: string;
    /** Configuration overrides, like `-D key=value` (applied over those of `dnecho run -D`). */
    set?: Record<string, string | number | boolean>;
    /** Hadoop RPC user name. Default: `dnecho run --user`, else HADOOP_USER_NAME, else the OS user. */
    user?: string;
    /** Container lookup: 'freon' = GetContainer + ListPipelines (default); 'single' = GetContainerWithPipeline. */
    lookup?: 'freon' | 'single';
    /**
     * Give up on the SCM lookup after this long (default '60s'), so an unreachable SCM fails the init
     * quickly. The lookup is shared: the first Client to ask for a container sets its timeout. Within
     * it, an SCM that stays silent for 5s (`hdds.scmclient.rpc.timeout` when the configuration sets
     * it; at most a quarter of this timeout) is left for the next SCM of the service.
     */
    lookupTimeout?: Duration;
    /** Default 'first'. Only 'first' with `ratis` (calls go to the leader). */
    target?: Target;
    /** Default 'new'. Not with `ratis` (one ordered stream per client carries every call). */
    stream?: StreamMode;
    /** Default 'grpc', like `dnecho freon --transport`. Not with `ratis` (its Raft client runs on grpc-go). */
    transport?: Transport;
    /**
     * Send Echo through the pipeline's Raft group on the DataNodes' RATIS port, like freon `--ratis`:
     * a Raft write (logged, replicated to a majority, applied on every replica; samples tagged
     * `mode: 'ratis-write'`) unless `readOnly`, then a Raft read the leader answers (`'ratis-read'`).
     * Default false: plain gRPC (`'grpc'`).
     *
     * @example
     * // examples/ratis-modes.js: the three modes side by side, with thresholds per mode
     * const reads = new dnecho.Client({ containerId: 1, ratis: true, readOnly: true });
     * const writes = new dnecho.Client({ containerId: 1, ratis: true });
     * export const options = { thresholds: { 'dnecho_req_duration{mode:ratis-write}': ['p(99)<1000'] } };
     */
    ratis?: boolean;
    /**
     * The read-only flag of this client's Echoes (freon `--read-only`); a request's own `readOnly`
     * overrides it. Default false, which with `ratis` means writes; over gRPC Echo is always read-only.
     */
    readOnly?: boolean;
    /**
     * With `ratis`, allow writes to a container SCM does not list as OPEN on its pipeline. Without it such a
     * client throws in the init context: on a real cluster a write a replica cannot apply closes the
     * pipeline. Default false.
     */
    unsafeWrite?: boolean;
    /**
     * Independent gRPC client objects (connections per DataNode, at most 32 calls in flight each) shared
     * by all VUs; VU n uses client n mod clients. Default 1 (freon `--clients`). At most 1024.
     */
    clients?: number;
    /**
     * Deadline of one Echo attempt. Default `ozone.client.read.timeout` of the configuration ('30s'); with
     * `ratis`, the Raft request timeout ('60s').
     */
    deadline?: Duration;
    /**
     * Retry on the other pipeline members after a failure (only with target 'first'); with `ratis`, follow
     * NotLeader and LeaderNotReady with Ozone 2.2.0's retry policy. Default true.
     */
    retries?: boolean;
    /**
     * Container token: 'auto' (fetch from SCM when `hdds.container.token.enabled` is true; default),
     * 'none' (send no token), or an encoded token string to send as is.
     */
    token?: 'auto' | 'none' | string;
    /**
     * TLS to the DataNodes: CA PEM file path(s). Default: plaintext unless the configuration enables gRPC
     * TLS (`ozone.security.enabled` and `hdds.grpc.tls.enabled`); then, without CA files, the CA
     * certificates are fetched from the Ozone Manager (`ozone.om.address`), as freon does.
     */
    tlsCA?: string | string[];
    /**
     * Look the container up again when every call has failed with UNAVAILABLE for `reresolveAfter`
     * (DataNodes restarted on new ports, pipeline replaced), and carry on where SCM says it is now.
     * Default true; false keeps the first pipeline, as the Java tool does.
     */
    reresolve?: boolean;
    /** See `reresolve`. Default '10s', at least '1s'. */
    reresolveAfter?: Duration;
    /**
     * Kerberos principal to log in as from `keytab`, e.g. 'alice@EXAMPLE.COM' (the realm defaults to
     * krb5.conf's). Used when the configuration says `hadoop.security.authentication=kerberos`; without
     * `keytab` the ticket cache of `kinit` is used (KRB5CCNAME, else /tmp/krb5cc_<uid>) and `principal`,
     * when given, must be its owner. KRB5_CONFIG names krb5.conf. Default: `dnecho run --principal`.
     *
     * @example
     * const client = new dnecho.Client({ containerId: 1, conf: '/etc/ozone', principal: 'alice', keytab: '/etc/alice.keytab' });
     */
    principal?: string;
    /** Kerberos keytab file to log in from, with `principal`. Default: `dnecho run --keytab`. */
    keytab?: string;
    /** Throw a JS exception on a failed echo instead of returning `ok: false`. Default false. */
    throw?: boolean;
    /** Extra tags for every sample of this client (values: string, number or boolean). */
    tags?: Record<string, string | number | boolean>;
  }

  /**
   * One Echo request. Unknown keys and bad values throw whatever the `throw` option says: they are
   * mistakes in the script, not DataNode failures.
   */
  export interface EchoRequest {
    /** Request payload size (ignored by the DataNode; freon's repeated random bytes). Default 0. At most 32 MiB. */
    payloadReq?: Size;
    /** Response payload size the DataNode generates. Default 0. Freon caps it at 2097151 bytes; so do we unless `uncapped`. */
    payloadResp?: Size;
    /** Let payloadResp exceed freon's 2097151-byte cap (to measure the error path above it). */
    uncapped?: boolean;
    /** Server-side sleep before answering, whole ms. Default 0. */
    sleepMs?: number;
    /**
     * Echo read-only flag. Default: the Client's `readOnly` (always true over gRPC, where freon forces it);
     * with `ratis` it picks a Raft read (true) or write (false) for this call.
     */
    readOnly?: boolean;
    /** Overrides the Client's `throw` option for this call. */
    throw?: boolean;
    /** Extra tags for this call's samples. */
    tags?: Record<string, string | number | boolean>;
  }

  /** A request checked and encoded by Client.prepare(); a frozen copy of its fields. */
  export type PreparedRequest = Readonly<EchoRequest> & { readonly __prepared: unique symbol };

  export interface EchoResult {
    /** True when the DataNode answered SUCCESS. */
    ok: boolean;
    /**
     * 'SUCCESS', another Ozone result name ('CONTAINER_NOT_FOUND', 'CONTAINER_INTERNAL_ERROR', ...) when the
     * DataNode answered, else the canonical gRPC status name ('UNAVAILABLE', 'DEADLINE_EXCEEDED',
     * 'RESOURCE_EXHAUSTED', 'UNAUTHENTICATED', 'CANCELLED', ...), or 'NO_REPLY' when the stream ended without
     * an answer. With `ratis`, a Raft exception's simple class name: 'ContainerNotOpenException',
     * 'StorageContainerException' (an apply failed), 'NotLeaderException' (the retries ran out), ...
     */
    result: string;
    /** Error text from the DataNode or gRPC; '' on success. */
    message: string;
    /**
     * Latency in milliseconds, the value `dnecho_req_duration` records: from the call (before waiting
     * for one of the client's 32 call slots) to the DataNode's response, failed attempts on other
     * members included — the interval Java freon's rpc-payload timer covers.
     */
    rtt: number;
    /** uuid of the DataNode that answered (or failed last). */
    datanode: string;
    /** host:port of that DataNode. */
    address: string;
    /** Request bytes sent (serialised Echo request, all attempts). */
    bytesSent: number;
    /** Response bytes received. */
    bytesReceived: number;
    /** Attempts made (> 1 when retried on other members). */
    attempts: number;
  }

  export interface DataNodeInfo {
    uuid: string;
    /** host:port the client dials. */
    address: string;
    hostName: string;
  }

  export interface PipelineInfo {
    containerId: number;
    pipelineId: string;
    /** e.g. 'OPEN'. */
    containerState: string;
    /** In pipeline member order. */
    datanodes: DataNodeInfo[];
    /** uuid of the leader SCM lists for the pipeline (where `ratis` calls start); '' when none. */
    leader: string;
  }

  /**
   * A client for one container's pipeline.
   *
   * @example
   * // examples/freon-equivalent.js: `ozone freon dn-echo --container-id 1 -n 100000 -t 32 --payload-resp 1`
   * import dnecho from 'k6/x/dnecho';
   *
   * export const options = {
   *   scenarios: {
   *     dn_echo: { executor: 'shared-iterations', vus: 32, iterations: 100000, maxDuration: '10m' },
   *   },
   *   summaryTrendStats: ['min', 'med', 'avg', 'p(75)', 'p(95)', 'p(98)', 'p(99)', 'p(99.9)', 'max', 'count'],
   *   // freon without -f stops at the first failure.
   *   thresholds: { dnecho_req_failed: [{ threshold: 'rate==0', abortOnFail: true }] },
   * };
   *
   * const client = new dnecho.Client({ containerId: 1, clients: 1 });
   * const request = client.prepare({ payloadReq: '0KB', payloadResp: '1KB', sleepMs: 0 });
   *
   * export default function () {
   *   client.echo(request);
   * }
   */
  export class Client {
    /**
     * Validates the options and looks the container up (once per test run for all VUs). Only in the init
     * context: elsewhere it throws 'dnecho.Client must be created in the init context'. An unreachable SCM
     * or an unknown container throws, which fails the test before it starts.
     */
    constructor(options: ClientOptions);
    /**
     * Send one Echo RPC and record its samples. Only in VU code (default or exec functions, setup,
     * teardown), not in the init context. A failed call returns `ok: false` (or throws with `throw`).
     *
     * @example
     * // examples/payload-sweep.js: one scenario per size, tagged, run one after the other
     * export const options = {
     *   scenarios: {
     *     payload_small: { executor: 'constant-vus', vus: 8, duration: '15s', exec: 'small', tags: { payload: '4KB' } },
     *     payload_large: { executor: 'constant-vus', vus: 8, duration: '15s', startTime: '18s', exec: 'large', tags: { payload: '1MB' } },
     *   },
     *   thresholds: { 'dnecho_req_duration{payload:1MB}': ['p(95)<50'] },
     * };
     * export function small() { client.echo({ payloadResp: '4KB' }); }
     * export function large() { client.echo({ payloadResp: '1MB' }); }
     */
    echo(request?: EchoRequest | PreparedRequest): EchoResult;
    /**
     * Check and encode a request once, also in the init context. echo(prepared) then skips reading
     * the request object on every call: the fastest form of a call. The returned object is frozen
     * and holds the request's fields; changing the original object later does not change it. At most
     * 1024 per VU: prepare each distinct request once.
     *
     * @example
     * // examples/freon-equivalent.js
     * const request = client.prepare({ payloadReq: '0KB', payloadResp: '1KB', sleepMs: 0 });
     * export default function () {
     *   client.echo(request);
     * }
     */
    prepare(request?: EchoRequest): PreparedRequest;
    /**
     * Send one Echo RPC without waiting for it: the call runs off the VU's JavaScript thread and the
     * returned Promise resolves with the same {@link EchoResult} echo() returns (or rejects: `throw`
     * option, bad request). One VU can so keep many calls in flight, like k6's gRPC `asyncInvoke`. The
     * samples and tags are echo()'s; the VU's tags (group, exec.vu.metrics.tags) are those of the moment
     * the call was made. The iteration does not end before every call it started has returned. Not in
     * the init context.
     *
     * @example
     * // examples/async-echo.js: IN_FLIGHT chains of calls per VU
     * const client = new dnecho.Client({ containerId: 1 });
     * const request = { payloadResp: '1KB' };
     * async function chain() {
     *   for (let i = 0; i < CALLS; i++) {
     *     const r = await client.echoAsync(request);
     *     check(r, { 'echo ok': (r) => r.ok });
     *   }
     * }
     * export default async function () {
     *   const chains = [];
     *   for (let i = 0; i < IN_FLIGHT; i++) chains.push(chain());
     *   await Promise.all(chains);
     * }
     */
    echoAsync(request?: EchoRequest): Promise<EchoResult>;
    /**
     * The pipeline found by the SCM lookup. Allowed in the init context, e.g. to build per-DataNode
     * thresholds (options are read once, before the test starts).
     *
     * @example
     * // examples/per-datanode-thresholds.js
     * const client = new dnecho.Client({ containerId: 1, target: 'all' });
     * const datanodes = __ENV.DNECHO_DATANODES
     *   ? __ENV.DNECHO_DATANODES.split(',')
     *   : client.pipeline().datanodes.map((dn) => dn.uuid);
     * const thresholds = { dnecho_req_failed: ['rate<0.01'] };
     * for (const uuid of datanodes) {
     *   thresholds[`dnecho_req_duration{datanode:${uuid}}`] = ['p(95)<10'];
     * }
     * export const options = { vus: 6, duration: '30s', thresholds };
     */
    pipeline(): PipelineInfo;
  }

  const dnecho: { Client: typeof Client };
  export default dnecho;
}
