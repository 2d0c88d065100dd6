// make bench: the scaling rows' `dnecho run` side. THREADS VUs share ITERATIONS Echo calls
// (freon's closed loop, as examples/freon-equivalent.js) with target 'all': round-robin over
// every member of the container's pipeline, so the client holds a connection per DataNode, as
// `dnecho freon dn-echo --target all` does.
import dnecho from 'k6/x/dnecho';

const threads = Number(__ENV.THREADS || 32);
const iterations = Number(__ENV.ITERATIONS || 100000);

export const options = {
  scenarios: {
    dn_echo: { executor: 'shared-iterations', vus: threads, iterations: Math.max(iterations, threads), maxDuration: '10m' },
  },
};

const client = new dnecho.Client({ containerId: 1, target: 'all', scm: __ENV.DNECHO_SCM });
const request = client.prepare({ payloadReq: '0KB', payloadResp: '0KB' });

export default function () {
  client.echo(request);
}
