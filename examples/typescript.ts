// TypeScript works as is: types are stripped when the script loads. With tsconfig.json beside it
// (its `paths` maps k6/x/dnecho to js/index.d.ts; @types/k6 installed), editors and
// `tsc -p examples` check the options and results.
//
//   dnecho run --local-cluster examples/typescript.ts
//   dnecho run --local-cluster -e DURATION=5s examples/typescript.ts
import { check } from 'k6';
import dnecho from 'k6/x/dnecho';
import type { ClientOptions, EchoRequest, EchoResult, PipelineInfo } from 'k6/x/dnecho';

export const options = {
  vus: Number(__ENV.VUS || 4),
  duration: __ENV.DURATION || '20s',
  thresholds: { dnecho_req_failed: ['rate<0.01'] },
};

const clientOptions: ClientOptions = {
  containerId: Number(__ENV.CONTAINER_ID || 1),
  scm: __ENV.DNECHO_SCM,
  conf: __ENV.DNECHO_CONF,
  stream: 'reuse',
  tags: { suite: 'typescript' },
};
const client = new dnecho.Client(clientOptions);
const pipeline: PipelineInfo = client.pipeline();
const request: EchoRequest = { payloadReq: '1KB', payloadResp: '4KiB', tags: { pipeline_size: String(pipeline.datanodes.length) } };

export default function (): void {
  const r: EchoResult = client.echo(request);
  check(r, {
    'echo ok': (r: EchoResult) => r.ok,
    'answered by a pipeline member': (r: EchoResult) => pipeline.datanodes.some((dn) => dn.uuid === r.datanode),
  });
}
