/* GPU memory under the timeline (report/html_events.c writes its data, in #tl-mem, and the page
 * carries this script only then): a band per process and device, its live bytes filled as a step
 * line, reserved and the device's use (NVML) as lines, each bucket's most. It follows the
 * timeline's view (timeline.js marks each frame it draws on the root element; its figure tells the
 * span shown), so zoom and pan there move it too. Plain ES2015. */
(function () {
    "use strict";
    var fig = document.getElementById("tl-memory"), src = document.getElementById("tl-mem");
    if (!fig || !src) return;
    var data = JSON.parse(src.textContent), span = Math.max(1, data.span);
    var canvas = fig.querySelector("canvas"), box = fig.querySelector(".tl-box"), tl = document.getElementById("tl-events");
    var nojs = fig.querySelector(".tl-nojs");
    if (nojs) nojs.hidden = true;
    var HEAD = 15, BAND = 44, GAP = 4, width = 0, v0 = 0, v1 = span;

    function bytesText(v) { /* as metric.c writes bytes: a decimal prefix, three significant digits */
        var p = 0, prefix = ["B", "kB", "MB", "GB", "TB", "PB"];
        while (v >= 999.5 && p < prefix.length - 1) { v /= 1000; p++; }
        return (p ? String(Number(v.toPrecision(3))) : v.toFixed(0)) + " " + prefix[p];
    }
    function fmt(ns) {
        var a = Math.abs(ns);
        if (a >= 1e9) return (ns / 1e9).toFixed(3) + " s";
        if (a >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
        return (ns / 1e3).toFixed(2) + " \u00b5s";
    }
    var bands = data.bands.map(function (m, j) {
        var n = m.s.length, s = new Float64Array(n), acc = 0, top = 1;
        for (var i = 0; i < n; i++) {
            acc += m.s[i];
            s[i] = acc;
            top = Math.max(top, m.v[i] || 0, m.r[i] || 0, m.u[i] || 0);
        }
        return { m: m, s: s, n: n, top: top, y: j * (HEAD + BAND + GAP) + HEAD };
    });
    var height = bands.length * (HEAD + BAND + GAP);

    function lowerBound(a, n, x) {
        var lo = 0, hi = n;
        while (lo < hi) {
            var mid = (lo + hi) >> 1;
            if (a[mid] < x) lo = mid + 1; else hi = mid;
        }
        return lo;
    }
    function yOf(b, v) { return b.y + BAND - (v / b.top) * (BAND - 2); }
    /* vals as a step line over the view (filled down to the band's floor where fill). */
    function line(ctx, b, vals, k, color, fill) {
        var started = false, drawn = false;
        ctx.beginPath();
        for (var i = 0; i < b.n; i++) {
            var v = vals[i];
            var x = (b.s[i] - v0) * k, xe = ((i + 1 < b.n ? b.s[i + 1] : span) - v0) * k;
            if (v === null || xe < 0 || x > width) { started = fill ? started : false; continue; }
            var y = yOf(b, v), x0 = Math.max(x, 0), x1 = Math.min(xe, width);
            if (!started) { ctx.moveTo(x0, fill ? b.y + BAND : y); started = true; }
            ctx.lineTo(x0, y);
            ctx.lineTo(x1, y);
            drawn = true;
        }
        if (!drawn) return;
        if (fill) {
            ctx.lineTo(Math.min((span - v0) * k, width), b.y + BAND);
            ctx.closePath();
            ctx.fillStyle = color;
            ctx.fill();
        } else {
            ctx.strokeStyle = color;
            ctx.lineWidth = 1.5;
            ctx.stroke();
        }
    }
    function draw() {
        if (tl && tl.tlView) { var v = tl.tlView(); v0 = v[0]; v1 = v[1]; }
        var dpr = window.devicePixelRatio || 1;
        width = Math.max(100, box.clientWidth);
        canvas.width = Math.round(width * dpr);
        canvas.height = Math.round(height * dpr);
        canvas.style.height = height + "px";
        var ctx = canvas.getContext("2d");
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        ctx.clearRect(0, 0, width, height);
        ctx.font = "11px system-ui, sans-serif";
        ctx.textBaseline = "middle";
        var k = width / (v1 - v0);
        bands.forEach(function (b) {
            ctx.fillStyle = "#1b2430";
            ctx.textAlign = "left";
            ctx.fillText(b.m.l + " (most " + bytesText(b.top) + ")", 2, b.y - HEAD / 2 + 1);
            ctx.fillStyle = "#f6f8fa";
            ctx.fillRect(0, b.y, width, BAND);
            line(ctx, b, b.m.v, k, "rgba(31, 157, 107, 0.55)", true);
            line(ctx, b, b.m.r, k, "#b06a2a", false);
            line(ctx, b, b.m.u, k, "#c0399a", false);
        });
        document.documentElement.setAttribute("data-mem-drawn",
            String((Number(document.documentElement.getAttribute("data-mem-drawn")) || 0) + 1));
    }
    /* The timeline marks each frame it draws: this one follows. */
    new MutationObserver(function () { window.requestAnimationFrame(draw); })
        .observe(document.documentElement, { attributes: true, attributeFilter: ["data-tl-drawn"] });
    window.addEventListener("resize", function () { window.requestAnimationFrame(draw); });

    var tip = document.getElementById("tip");
    function show(ev) {
        var r = canvas.getBoundingClientRect(), y = ev.clientY - r.top, t = v0 + (ev.clientX - r.left) / r.width * (v1 - v0);
        var hitBand = null;
        bands.forEach(function (b) { if (y >= b.y && y < b.y + BAND) hitBand = b; });
        var i = hitBand ? lowerBound(hitBand.s, hitBand.n, t + 1) - 1 : -1;
        if (i < 0 || !tip) { if (tip) tip.hidden = true; return; }
        var m = hitBand.m, lines = [fmt(hitBand.s[i]) + " from the start: the most of its bucket"];
        if (m.v[i] !== null) lines.push("live " + bytesText(m.v[i]));
        if (m.r[i] !== null) lines.push("reserved " + bytesText(m.r[i]));
        if (m.u[i] !== null) lines.push("device in use (NVML) " + bytesText(m.u[i]));
        tip.textContent = "";
        var head = document.createElement("b");
        head.textContent = m.l;
        tip.appendChild(head);
        tip.appendChild(document.createTextNode("\n" + lines.join("\n")));
        tip.hidden = false;
        tip.style.left = Math.max(4, Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 4)) + "px";
        tip.style.top = Math.max(4, Math.min(ev.clientY + 14, window.innerHeight - tip.offsetHeight - 4)) + "px";
        fig.setAttribute("data-hover", m.l);
    }
    canvas.addEventListener("pointermove", show);
    canvas.addEventListener("pointerleave", function () { if (tip) tip.hidden = true; });
    fig.memBands = bands;
    draw();
})();
