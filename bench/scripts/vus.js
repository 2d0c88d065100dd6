// make bench: memory per VU. VUS VUs echo gently (one call then 50 ms of sleep) for DURATION.
import { sleep } from 'k6';
import dnecho from 'k6/x/dnecho';

export const options = { vus: Number(__ENV.VUS || 1), duration: __ENV.DURATION || '5s' };

const client = new dnecho.Client({ containerId: 1, scm: __ENV.DNECHO_SCM });

export default function () {
  client.echo();
  sleep(0.05);
}
