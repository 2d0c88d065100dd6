/**
 * Typings for the `k6/x/dnecho` module of dnecho (`dnecho run`).
 *
 * The module sends Ozone DataNode Echo RPCs (the `ozone freon dn-echo` call) from k6-style scripts.
 * A Client is declared in the init context; the SCM lookup (container → pipeline → DataNodes, and the
 * container token) runs once per test run and is shared by every VU, as are the gRPC connections.
 *
 * @example
 * import dnecho from 'k6/x/dnecho';
 * import { check } from 'k6';
 *
 * export const options = { vus: 8, duration: '30s' };
 *
 * const client = new dnecho.Client({ containerId: 1 });
 *
 * export default function () {
 *   const r = client.echo({ payloadResp: 1024 });
 *   check(r, { 'echo ok': (r) => r.ok });
 * }
 */
declare module 'k6/x/dnecho' {
  /** Where the Client sends requests among the container's pipeline members. */
  export type Target =
    /** The first pipeline member (Java client order), retrying on the others on failure. Default. */
    | 'first'
    /** Round-robin over every replica; no retries, so each DataNode's failures stay visible. */
    | 'all'
    /** One DataNode, by uuid or host (ipAddress or hostName). */
    | string;

  /** How requests use gRPC streams. */
  export type StreamMode =
    /** A new bidirectional stream per request, half-closed after the request (what Ozone's Java client does). Default. */
    | 'new'
    /** One long-lived stream per connection, requests sent one after another on it. */
    | 'reuse';

  /** A size in bytes, or a string with a unit: '512B', '4KB' (= 4 KiB, freon's unit), '1KiB', '2MB', '2MiB'. */
  export type Size = number | string;

  export interface ClientOptions {
    /** Container whose pipeline is echoed to. Required. */
    containerId: number;
    /**
     * SCM address(es) `host:port`, comma-separated for SCM HA. Default: from `conf`, else from
     * OZONE_CONF_DIR, else the cluster started by `dnecho run --local-cluster`.
     */
    scm?: string;
    /** Directory holding ozone-site.xml (like `ozone --conf`). */
    conf?: string;
    /** Configuration overrides, like `-D key=value`. */
    set?: Record<string, string>;
    /** Container lookup: 'freon' = GetContainer + ListPipelines (default); 'single' = GetContainerWithPipeline. */
    lookup?: 'freon' | 'single';
    target?: Target;
    stream?: StreamMode;
    /** Independent gRPC client objects (connections per DataNode) shared by all VUs; VU n uses client n mod clients. Default 1 (freon `--clients`). */
    clients?: number;
    /** Deadline of one Echo call, e.g. '30s' (default, `ozone.client.read.timeout`) or milliseconds. */
    deadline?: string | number;
    /** Retry on the other pipeline members after a failure (only with target 'first'). Default true. */
    retries?: boolean;
    /**
     * Container token: 'auto' (fetch from SCM when `hdds.container.token.enabled` is true; default),
     * 'none' (send no token), or an encoded token string to send as is.
     */
    token?: 'auto' | 'none' | string;
    /** TLS to the DataNodes: a CA PEM file path. Default: plaintext unless the config enables gRPC TLS. */
    tlsCA?: string;
    /** Throw a JS exception on a failed echo instead of returning `ok: false`. Default false. */
    throw?: boolean;
    /** Extra tags for every sample of this client. */
    tags?: Record<string, string>;
  }

  export interface EchoRequest {
    /** Request payload size (ignored by the DataNode). Default 0. */
    payloadReq?: Size;
    /** Response payload size the DataNode generates. Default 0. Freon caps it at 2097151 bytes; so do we unless `uncapped`. */
    payloadResp?: Size;
    /** Let payloadResp exceed freon's 2097151-byte cap (to measure the error path above it). */
    uncapped?: boolean;
    /** Server-side sleep before answering, ms. Default 0. */
    sleepMs?: number;
    /** Echo read-only flag. Default true (freon forces it over gRPC). */
    readOnly?: boolean;
    /** Extra tags for this call's samples. */
    tags?: Record<string, string>;
  }

  export interface EchoResult {
    /** True when the DataNode answered SUCCESS. */
    ok: boolean;
    /** Ozone result name ('SUCCESS', 'CONTAINER_NOT_FOUND', ...) or the gRPC status name ('UNAVAILABLE', 'DEADLINE_EXCEEDED', ...). */
    result: string;
    /** Error text from the DataNode or gRPC; '' on success. */
    message: string;
    /** Round-trip time in milliseconds (all attempts). */
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
    address: string;
    hostName: string;
  }

  export interface PipelineInfo {
    containerId: number;
    pipelineId: string;
    containerState: string;
    datanodes: DataNodeInfo[];
  }

  export class Client {
    constructor(options: ClientOptions);
    /** Send one Echo RPC. Emits dnecho_req_duration, dnecho_reqs, dnecho_req_failed, dnecho_data_sent/received. */
    echo(request?: EchoRequest): EchoResult;
    /** The pipeline found by the SCM lookup. */
    pipeline(): PipelineInfo;
  }

  const dnecho: { Client: typeof Client };
  export default dnecho;
}
