// Spread calls over every replica and fail the run when one DataNode is slow: at the end of the
// test dnecho compares each DataNode's p99 with the median p99 of the others (docs/slow-datanode.md),
// names the slow ones in the summary and counts them in dnecho_slow_datanodes, which the
// threshold below holds at zero (exit code 99 otherwise). --slow-factor sets how much slower is
// slow (default 2).
//
//   dnecho cluster --conf-dir /tmp/mini --slow-datanode 2=5ms &
//   dnecho run --conf /tmp/mini examples/slow-datanode.js
//   dnecho run --local-cluster -e DURATION=5s examples/slow-datanode.js
import dnecho from 'k6/x/dnecho';

const client = new dnecho.Client({
  containerId: Number(__ENV.CONTAINER_ID || 1),
  scm: __ENV.DNECHO_SCM,
  conf: __ENV.DNECHO_CONF,
  target: 'all',
});

export const options = {
  vus: Number(__ENV.VUS || 6),
  duration: __ENV.DURATION || '30s',
  thresholds: {
    dnecho_slow_datanodes: ['value==0'],
  },
};

export default function () {
  client.echo();
}
