// dnecho web dashboard: draws the run's charts with uPlot from the document the output publishes
// (live: polled from /data; report: embedded in the page).
(function () {
  "use strict";
  var cfg = JSON.parse(document.getElementById("dnecho-config").textContent);
  var palette = ["#2f6fde", "#e8743b", "#19a979", "#ed4a7b", "#945ecf", "#13a4b4", "#bf399e", "#6c8893", "#ee6868", "#525df4"];
  var charts = {};
  var doc = { points: [] };
  // For the browser console and the end-to-end tests: the charts (uPlot instances, the tick
  // labels last drawn) and the document they show.
  window.dnechoDashboard = { charts: charts, doc: function () { return doc; } };

  // Integer tick steps, for counts (VUs, failing thresholds).
  var integerIncrs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000];

  function el(id) { return document.getElementById(id); }

  function width(id) { return Math.max(300, el(id).clientWidth - 4); }

  function lastValue(col) {
    for (var i = col.length - 1; i >= 0; i--) { if (col[i] != null) { return col[i]; } }
    return null;
  }

  // xRange spans the test from its start, and at least one period.
  function xRange(u, lo, hi) {
    var period = (doc.period || 1000) / 1000;
    lo = doc.start / 1000;
    if (hi == null || hi - lo < period) { hi = lo + period; }
    return [lo, hi];
  }

  // yAxis is a value axis whose labels carry the unit; ticks(labels) keeps the labels last drawn.
  function yAxis(unit, ticks, more) {
    var a = { values: function (u, vs) { var t = vs.map(function (v) { return format(v, unit); }); ticks(t); return t; },
      // Wide enough for the longest label ("12,345.6/s"), which uPlot's fixed 50 px cuts.
      size: function (u, vs) { return 18 + 7 * Math.max(3, Math.max.apply(null, (vs || []).map(function (v) { return v.length; }))); } };
    Object.keys(more || {}).forEach(function (k) { a[k] = more[k]; });
    return a;
  }

  // fromZero is the range of a scale that starts at 0 (rates, counts): a rate's chart that starts
  // at its smallest value makes a small wobble look like a collapse.
  function fromZero(u, lo, hi) { return [0, hi > 0 ? uPlot.rangeNum(0, hi, 0.1, true)[1] : 1]; }

  // chart (re)creates a chart when its series change and otherwise only swaps its data.
  // o: unit (of the values), integer (counts: integer ticks from 0), zero (the y axis starts at 0),
  // right (series index → true for the series drawn against a second axis on the right, with its
  // own scale), x (the x scale and axis), idle (the legend away from the cursor; by default the
  // last value).
  function chart(id, names, xs, cols, o) {
    var key = names.join("\u0000");
    var data = [xs].concat(cols);
    var c = charts[id];
    if (c && c.key === key) { c.plot.setData(data); return; }
    if (c) { c.plot.destroy(); }
    c = { key: key, ticks: [] };
    var series = [o.x ? o.x.series : {}].concat(names.map(function (n, i) {
      var st = o.style ? o.style(i) : {};
      var s = { label: n, stroke: st.stroke || palette[i % palette.length], dash: st.dash, width: 1.5, spanGaps: true,
        scale: o.right && o.right(i) ? "right" : "y",
        // Away from the cursor (always, in a printed report) the legend shows the last value.
        value: function (u, v, si, di) {
          if (di == null) { return o.idle ? o.idle(u.data[si]) : format(lastValue(u.data[si]), o.unit); }
          return v == null ? "–" : format(v, o.unit);
        } };
      if (o.x && o.x.bars) { s.paths = uPlot.paths.bars({ size: [0.9, 40] }); s.fill = palette[i % palette.length] + "99"; s.points = { show: false }; }
      return s;
    }));
    var y = {}, axes = [o.x ? o.x.axis : {}, yAxis(o.unit, function (t) { c.ticks = t; })];
    if (o.integer) {
      axes[1].incrs = integerIncrs;
      y.range = function (u, lo, hi) { return [0, Math.max(1, Math.ceil(hi || 0))]; };
    } else if (o.zero) {
      y.range = fromZero;
    }
    var scales = { x: o.x ? o.x.scale : { time: true, range: xRange }, y: y };
    if (o.right) {
      scales.right = {};
      axes.push(yAxis(o.unit, function (t) { c.rightTicks = t; }, { scale: "right", side: 1, grid: { show: false } }));
    }
    var opts = { width: width(id), height: 220, series: series, scales: scales, axes: axes, legend: { live: true } };
    c.plot = new uPlot(opts, data, el(id));
    charts[id] = c;
  }

  function fmt(v) {
    if (v == null || isNaN(v)) { return "–"; }
    var a = Math.abs(v);
    if (a >= 100 || v === Math.round(v)) { return (Math.round(v * 10) / 10).toLocaleString("en"); }
    if (a >= 1) { return v.toFixed(2); }
    return v.toPrecision(3);
  }

  // format writes a value with its unit; "%" values are fractions, "B" values bytes.
  function format(v, unit) {
    if (v == null || isNaN(v)) { return "–"; }
    if (unit === "%") { return fmt(100 * v) + "%"; }
    if (unit === "B" || unit === "B/s") { return bytes(v) + (unit === "B/s" ? "/s" : ""); }
    return fmt(v) + (unit ? (unit.charAt(0) === "/" ? unit : " " + unit) : "");
  }

  function bytes(v) {
    var units = ["B", "kB", "MB", "GB", "TB"], i = 0;
    while (Math.abs(v) >= 1000 && i < units.length - 1) { v /= 1000; i++; }
    return (i === 0 ? String(Math.round(v)) : v.toFixed(1)) + " " + units[i];
  }

  function keysOf(points, field) {
    var seen = {};
    points.forEach(function (p) { Object.keys(p[field] || {}).forEach(function (k) { seen[k] = true; }); });
    return Object.keys(seen).sort();
  }

  // column is one series of the time charts: null at the test's start, then one value a point.
  function column(points, f) { return [null].concat(points.map(function (p) { var v = f(p); return v == null ? null : v; })); }

  function render(d) {
    doc = d;
    var pts = d.points || [];
    // The x axis starts with the test: with a single point uPlot would otherwise span years.
    var xs = [d.start / 1000].concat(pts.map(function (p) { return p.t / 1000; }));
    var what = d.iterations ? "Iterations" : "Echo calls";
    el("rps-title").textContent = what + " per second";
    chart("rps", [d.iterations ? "iterations/s" : "calls/s"], xs, [column(pts, function (p) { return p.rps; })], { unit: "/s", zero: true });
    // max, often many times p99, gets the right-hand axis: on the percentiles' axis it would
    // flatten them to the bottom.
    var stats = ["p50", "p90", "p95", "p99", "max"];
    chart("lat", ["p50", "p90", "p95", "p99", "max (right axis)"], xs, stats.map(function (s) { return column(pts, function (p) { return p[s]; }); }),
      { unit: "ms", right: function (i) { return stats[i] === "max"; } });
    var dns = keysOf(pts, "dn");
    chart("dn", dns.length ? dns : ["(no datanode tag)"], xs,
      (dns.length ? dns : [""]).map(function (k) { return column(pts, function (p) { return p.dn ? p.dn[k] : null; }); }), { unit: "ms" });
    var res = keysOf(pts, "res");
    chart("res", res.length ? res : ["(no result tag)"], xs,
      (res.length ? res : [""]).map(function (k) { return column(pts, function (p) { return p.res ? (p.res[k] || 0) : null; }); }), { unit: "/s", zero: true });
    network(d, pts, xs);
    servers(d.servers || [], d.verdict);
    chart("vus", ["VUs"], xs, [column(pts, function (p) { return p.vus; })], { integer: true });
    chart("thf", ["failing thresholds"], xs, [column(pts, function (p) { return p.thf; })], { integer: true });
    histogram((d.totals && d.totals.hist) || [], d.iterations);
    thresholds(d.thresholds || []);
    header(d, pts);
  }

  // network draws, per DataNode, the p50 of its network RTT (dashed) and of the rest of its echo
  // latency, the DataNode's own time (solid), in the DataNode's colour.
  function network(d, pts, xs) {
    el("net-card").classList.toggle("hidden", !d.network);
    if (!d.network) { return; }
    var label = {};
    (d.servers || []).forEach(function (r) { label[r.name] = r.label; });
    var dns = keysOf(pts, "net"), names = [], cols = [];
    dns.forEach(function (k) {
      names.push((label[k] || k) + " network", (label[k] || k) + " DataNode");
      cols.push(column(pts, function (p) { return p.net && p.net[k] ? p.net[k].rtt : null; }),
        column(pts, function (p) { return p.net && p.net[k] ? p.net[k].rest : null; }));
    });
    if (!dns.length) { names = ["(no network samples)"]; cols = [column(pts, function () { return null; })]; }
    chart("net", names, xs, cols, { unit: "ms",
      style: function (i) { return { stroke: palette[Math.floor(i / 2) % palette.length], dash: i % 2 ? undefined : [5, 4] }; } });
  }

  // servers fills the per-DataNode table of the whole test so far and the slow-DataNode verdict.
  function servers(rows, verdict) {
    var body = el("dn-body");
    body.textContent = "";
    if (!rows.length) { body.insertRow().insertCell().textContent = "no calls yet"; }
    rows.forEach(function (r) {
      var tr = body.insertRow();
      var name = tr.insertCell();
      name.textContent = r.label;
      name.title = r.name;
      [fmt(r.attempts), fmt(r.failed), ms(r.p50), ms(r.p99), ms(r.rtt), ms(r.rest), fmt(r.retrans)].forEach(function (v) {
        var c = tr.insertCell();
        c.className = "num";
        c.textContent = v;
      });
    });
    var box = el("verdict");
    box.classList.toggle("hidden", !verdict);
    box.textContent = "";
    (verdict || []).forEach(function (line) {
      var div = document.createElement("div");
      div.textContent = line;
      div.className = /^SLOW/.test(line) ? "fail" : /^\s/.test(line) ? "cause" : /^No slow DataNode/.test(line) ? "ok" : "pending";
      box.appendChild(div);
    });
  }

  function ms(v) { return v == null ? "–" : fmt(v); }

  // header shows the whole test so far: its rate and p99, and the VUs now (live) or at most.
  function header(d, pts) {
    var t = d.totals || {};
    var rps = el("stat-rps"), p99 = el("stat-p99"), vus = el("stat-vus");
    rps.textContent = t.rate == null ? "–" : fmt(t.rate);
    rps.dataset.value = t.rate == null ? "" : String(t.rate);
    p99.textContent = t.p99 == null ? "–" : fmt(t.p99) + " ms";
    p99.dataset.value = t.p99 == null ? "" : String(t.p99);
    var v = d.final ? t.vusMax : (pts.length ? pts[pts.length - 1].vus : null);
    el("stat-vus-label").textContent = d.final ? "VUs max" : "VUs";
    vus.textContent = v == null ? "–" : fmt(v);
    el("stat-state").textContent = d.final ? "finished" : "running";
  }

  // histogram draws the whole test's latency as bars, one per logarithmic bin.
  function histogram(bins, iterations) {
    el("hist-title").textContent = (iterations ? "Iteration duration" : "Latency") + " histogram (whole test, ms)";
    var xs = bins.map(function (b, i) { return i; });
    var label = function (i) { var b = bins[Math.round(i)]; return b ? fmt(b.lo) : ""; };
    chart("hist", [iterations ? "iterations" : "calls"], xs, [bins.map(function (b) { return b.n; })], {
      integer: true,
      idle: function (col) { return fmt(col.reduce(function (a, b) { return a + (b || 0); }, 0)) + " in all"; },
      x: { bars: true, scale: { time: false, range: function () { return [-0.5, Math.max(bins.length, 1) - 0.5]; } },
        axis: { incrs: integerIncrs, values: function (u, vs) { return vs.map(label); } },
        series: { label: "bin", value: function (u, v) { var b = bins[v]; return b ? fmt(b.lo) + "–" + fmt(b.hi) + " ms" : "all"; } } },
    });
  }

  function thresholds(list) {
    var body = el("th-body");
    body.textContent = "";
    if (!list.length) {
      var tr = body.insertRow();
      tr.insertCell().textContent = "no thresholds";
      return;
    }
    list.forEach(function (t) {
      var tr = body.insertRow();
      var st = tr.insertCell();
      st.textContent = !t.evaluated ? "…" : t.ok ? "✓ pass" : "✗ fail";
      st.className = !t.evaluated ? "pending" : t.ok ? "ok" : "fail";
      tr.insertCell().textContent = t.metric;
      tr.insertCell().textContent = t.source;
      var v = tr.insertCell();
      v.className = "num";
      v.textContent = t.value == null ? "–" : format(t.value, t.unit);
    });
  }

  function poll() {
    fetch("/data", { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (d) {
      render(d);
      if (!d.final) { setTimeout(poll, cfg.pollMS); }
    }).catch(function () { el("stat-state").textContent = "finished (page no longer served)"; });
  }

  document.querySelectorAll("nav button").forEach(function (b) {
    b.addEventListener("click", function () {
      document.querySelectorAll("nav button").forEach(function (o) { o.classList.toggle("on", o === b); });
      document.querySelectorAll("section.tab").forEach(function (s) { s.classList.toggle("hidden", s.id !== b.dataset.tab); });
    });
  });

  if (cfg.live) { poll(); } else { render(JSON.parse(el("dnecho-data").textContent)); }
})();
