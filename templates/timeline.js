/* The timeline of every event (report/html_events.c writes its data and the page includes this
 * only then): tracks drawn on one canvas at the zoom the reader picks. Each track's events are
 * sorted by start, so a frame looks at the visible ones alone (a binary search to the first), and
 * events narrower than a pixel are drawn once per pixel column rather than one over another:
 * a frame of a 100,000-event profile costs a pass over what is visible, at most. Over the tracks:
 * the hovered event's launch link (a GPU event and the API call that launched it), a search's
 * matches (the rest dimmed) and an interval measured by shift+drag. Plain ES2015. */
(function () {
    "use strict";
    var fig = document.getElementById("tl-events"), src = document.getElementById("tl-data");
    if (!fig || !src) return;
    var root = document.documentElement;
    var data = JSON.parse(src.textContent), names = data.names;
    var canvas = fig.querySelector("canvas"), box = fig.querySelector(".tl-box");
    var ctl = fig.querySelector(".tl-ctl"), viewText = fig.querySelector(".tl-view");
    var tools = fig.querySelector(".tl-tools"), findBox = fig.querySelector(".tl-find");
    var foundText = fig.querySelector(".tl-found"), measureText = fig.querySelector(".tl-measure");
    var nojs = fig.querySelector(".tl-nojs");
    if (nojs) nojs.hidden = true;
    ctl.hidden = false;
    if (tools) tools.hidden = false;

    var ROW = 16, HEAD = 15, AXIS = 18, GAP = 4;
    /* A class's background in the style sheets as a canvas fill: its colour, or for a hatched one
     * (a repeating gradient: the account's "not known" and "not recorded") stripes of its first
     * and last colours. */
    function cssFill(cls) {
        var el = document.createElement("span");
        el.className = cls;
        el.hidden = true;
        fig.appendChild(el);
        var cs = window.getComputedStyle(el), fill = cs.backgroundColor;
        var stops = cs.backgroundImage.match(/rgba?\([^)]*\)/g);
        fig.removeChild(el);
        if (!stops) return fill;
        var tile = document.createElement("canvas"), g = tile.getContext("2d");
        tile.width = tile.height = 8;
        g.fillStyle = stops[stops.length - 1];
        g.fillRect(0, 0, 8, 8);
        g.strokeStyle = stops[0];
        g.lineWidth = 3;
        g.beginPath();
        [[-2, 10, 10, -2], [-2, 2, 2, -2], [6, 10, 10, 6]].forEach(function (l) { /* a diagonal, and its wrap */
            g.moveTo(l[0], l[1]);
            g.lineTo(l[2], l[3]);
        });
        g.stroke();
        return canvas.getContext("2d").createPattern(tile, "repeat");
    }
    /* The page's colours (report.css), by event category as html_events.c numbers them. The
     * later ones are read from the style sheets, where they are written once: a host sample's by
     * its thread's state (the key's swatches) and, from data.group0 on, a band's by its state's
     * group (the account bar's g- classes). */
    var COLORS = ["#1f9d6b", "#2f7fd8", "#8a5cd6", "#b06a2a", "#b06a2a", "#d08a00", "#7a8794", "#4a6fa5", "#2c7a58",
                  cssFill("sw hsu"), cssFill("sw hs"), cssFill("sw hsw")];
    (data.groups || []).forEach(function (g, i) { COLORS[data.group0 + i] = cssFill("g-" + g); });
    var KIND_CAT = { busy: 8, api: 6, ranges: 7, host: 9, capture: 7 };

    /* Tracks: starts made absolute again (ns from the run's start), each row's longest event (how
     * far back a search must start), and the track's place on the canvas. */
    var tracks = data.tracks.map(function (t) {
        var n = t.s.length, s = new Float64Array(n), acc = 0, rows = 1, i;
        for (i = 0; i < n; i++) { acc += t.s[i]; s[i] = acc; }
        if (t.z) for (i = 0; i < n; i++) rows = Math.max(rows, t.z[i] + 1);
        var longest = 0;
        for (i = 0; i < n; i++) longest = Math.max(longest, t.d[i]);
        return { t: t, s: s, n: n, rows: rows, longest: longest, y: 0 };
    });
    tracks.forEach(function (tr, j) { tr.j = j; });
    var height = AXIS;
    tracks.forEach(function (tr) {
        tr.y = height + HEAD;
        height += HEAD + tr.rows * ROW + GAP;
    });

    var span = Math.max(1, data.span), v0 = 0, v1 = span, width = 0;
    /* What is drawn over the tracks: a search's matching names (a flag per name; null: no search),
     * its matches by start and the one shown; the hovered event's launch link; the measured
     * interval (ns on the axis). */
    var nameMatch = null, matches = [], current = -1, link = null, linkLines = [], measure = null;

    /* Launch links (html_events.c's link_ids): a GPU event's "r" is the number of the API call that
     * launched it, and an API track's "r", a string of "0" and "1", flags the calls that launched
     * something shown; the calls are numbered 1, 2, ... in the page's order of tracks and starts,
     * so the flags are counted here. */
    var launchCall = [null], launched = {};
    tracks.forEach(function (tr, j) {
        var r = tr.t.r;
        if (!r) return;
        if (tr.t.k === "api") {
            tr.callId = new Int32Array(tr.n);
            for (var i = 0; i < tr.n; i++) /* a string of "0" and "1" */
                if (r.charCodeAt(i) === 49) { tr.callId[i] = launchCall.length; launchCall.push({ j: j, i: i }); }
        } else {
            for (var k = 0; k < tr.n; k++)
                if (r[k] > 0) (launched[r[k]] = launched[r[k]] || []).push({ j: j, i: k });
        }
    });
    /* The events joined to event i of track j by its launch: its call's, or the call's. */
    function linksOf(j, i) {
        var tr = tracks[j];
        if (tr.callId) return tr.callId[i] ? launched[tr.callId[i]] || [] : [];
        var id = tr.t.r ? tr.t.r[i] : 0;
        return id > 0 && launchCall[id] ? [launchCall[id]] : [];
    }

    /* The host samples' stacks: data.frames has each frame's distance back to its caller (0: the
     * outermost), its name and the places of the user's own frames. */
    var frames = data.frames, userFrame = {};
    if (frames) frames.u.forEach(function (f) { userFrame[f] = true; });

    function lowerBound(a, n, x) {
        var lo = 0, hi = n;
        while (lo < hi) {
            var mid = (lo + hi) >> 1;
            if (a[mid] < x) lo = mid + 1; else hi = mid;
        }
        return lo;
    }

    function fmt(ns) {
        var a = Math.abs(ns);
        if (a >= 1e9) return (ns / 1e9).toFixed(3) + " s";
        if (a >= 1e6) return (ns / 1e6).toFixed(3) + " ms";
        if (a >= 1e3) return (ns / 1e3).toFixed(2) + " \u00b5s";
        return ns === 0 ? "0" : Math.round(ns) + " ns";
    }

    /* Bytes and GB/s as the metric registry writes them everywhere else (metric.c: a decimal
     * prefix and three significant digits, "16.8 MB"; GB/s with one decimal): an event's own
     * figures are worked out here, from its bytes and duration. */
    function bytesText(v) {
        var p = 0, prefix = ["B", "kB", "MB", "GB", "TB", "PB"];
        while (v >= 999.5 && p < prefix.length - 1) { v /= 1000; p++; }
        return (p ? String(Number(v.toPrecision(3))) : v.toFixed(0)) + " " + prefix[p];
    }

    /* The axis counts from the run's start, where the tables' "at ms" count from: data.run0 is where
     * that start lies on the axis (after an event that began before it). */
    var run0 = data.run0 || 0;
    /* A tick: in the unit of the view's end, with the decimals the step needs ("19.45 ms", not
     * "19450 \u00b5s" nor "19.450000 ms"). */
    function fmtTick(v, step) {
        var top = Math.max(v1, step);
        var unit = top >= 1e9 ? 1e9 : top >= 1e6 ? 1e6 : top >= 1e3 ? 1e3 : 1;
        var name = unit === 1e9 ? " s" : unit === 1e6 ? " ms" : unit === 1e3 ? " \u00b5s" : " ns";
        var dec = Math.max(0, Math.min(6, -Math.floor(Math.log10(step / unit) + 1e-9)));
        return (v / unit).toFixed(dec) + name;
    }

    function niceStep(range, ticks) {
        var raw = range / ticks, p = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / p;
        return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
    }

    /* A name whole where it fits, else cut with an ellipsis (the whole name is on hover). */
    var fitCache = {};
    function fitted(ctx, name, w) {
        /* Fitted to the width rounded down to 8 px, so one answer serves many marks and fits each. */
        w = Math.floor(w / 8) * 8;
        if (w < 16) return "";
        var key = name + "\u0000" + w;
        if (key in fitCache) return fitCache[key];
        var text = name;
        if (ctx.measureText(name).width > w) {
            var lo = 0, hi = name.length;
            while (lo < hi) {
                var mid = (lo + hi + 1) >> 1;
                if (ctx.measureText(name.slice(0, mid) + "\u2026").width <= w) lo = mid; else hi = mid - 1;
            }
            text = lo > 0 ? name.slice(0, lo) + "\u2026" : "";
        }
        fitCache[key] = text;
        return text;
    }

    function colorOf(tr, i) {
        var t = tr.t;
        return COLORS[t.c ? t.c[i] : KIND_CAT[t.k]];
    }

    /* Where event i of track j is drawn at the view's scale k: at least a pixel wide. */
    function markRect(j, i, k) {
        var tr = tracks[j], s = tr.s[i], row = tr.t.z ? tr.t.z[i] : 0;
        var x0 = (s - v0) * k, x1 = Math.max(x0 + 1, (s + tr.t.d[i] - v0) * k);
        return { x0: x0, x1: x1, y: tr.y + row * ROW + 1, h: ROW - 2 };
    }
    /* A mark's middle, kept on the canvas (a mark partly or wholly outside the view is joined at
     * the edge it is past). */
    function middle(r) {
        return Math.max(0, Math.min(width, (Math.max(r.x0, 0) + Math.min(r.x1, width)) / 2));
    }
    function outline(ctx, r, colour) {
        ctx.strokeStyle = colour;
        ctx.lineWidth = 2;
        ctx.strokeRect(r.x0 - 1, r.y - 1, r.x1 - r.x0 + 2, r.h + 2);
    }
    var LINK = "#d6336c", MEASURE = "#1d5fa8";
    /* Drawn over the tracks: the current match of a search, the hovered event's launch link (both
     * ends outlined, joined by a line from edge to facing edge) and the measured interval. */
    function drawOverlays(ctx, k) {
        var shown = current >= 0 ? matches[current] : null;
        if (shown) outline(ctx, markRect(shown.j, shown.i, k), "#1b2430");
        linkLines = [];
        if (link) {
            var from = markRect(link.j, link.i, k);
            outline(ctx, from, LINK);
            link.to.forEach(function (o) {
                var to = markRect(o.j, o.i, k), down = from.y < to.y;
                outline(ctx, to, LINK);
                var line = [middle(from), down ? from.y + from.h + 1 : from.y - 1,
                            middle(to), down ? to.y - 1 : to.y + to.h + 1];
                ctx.strokeStyle = LINK;
                ctx.lineWidth = 2;
                ctx.beginPath();
                ctx.moveTo(line[0], line[1]);
                ctx.lineTo(line[2], line[3]);
                ctx.stroke();
                linkLines.push(line);
            });
        }
        if (measure) {
            var a = Math.min(measure.a, measure.b), b = Math.max(measure.a, measure.b);
            var xa = (a - v0) * k, xb = (b - v0) * k;
            ctx.fillStyle = "rgba(47, 127, 216, 0.12)";
            ctx.fillRect(xa, AXIS, xb - xa, height - AXIS);
            ctx.strokeStyle = MEASURE;
            ctx.lineWidth = 1;
            ctx.beginPath();
            ctx.moveTo(Math.round(xa) + 0.5, AXIS);
            ctx.lineTo(Math.round(xa) + 0.5, height);
            ctx.moveTo(Math.round(xb) + 0.5, AXIS);
            ctx.lineTo(Math.round(xb) + 0.5, height);
            ctx.stroke();
            var label = fmt(b - a), tw = ctx.measureText(label).width + 8;
            var lx = Math.max(0, Math.min(width - tw, (xa + xb) / 2 - tw / 2));
            ctx.fillStyle = MEASURE;
            ctx.fillRect(lx, AXIS, tw, 14);
            ctx.fillStyle = "#ffffff";
            ctx.textAlign = "left";
            ctx.fillText(label, lx + 4, AXIS + 7.5);
        }
    }

    function draw() {
        var started = performance.now();
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

        /* The axis: ticks at a 1, 2 or 5 step, with faint lines down through the tracks. */
        var step = niceStep(v1 - v0, Math.max(2, Math.floor(width / 90)));
        ctx.fillStyle = "#66727f";
        ctx.strokeStyle = "#eef1f4";
        for (var tv = Math.ceil(v0 / step) * step; tv <= v1; tv += step) {
            var gx = Math.round((tv - v0) * k) + 0.5;
            ctx.beginPath();
            ctx.moveTo(gx, AXIS - 4);
            ctx.lineTo(gx, height);
            ctx.stroke();
            ctx.textAlign = gx > width - 40 ? "right" : gx < 40 ? "left" : "center";
            ctx.fillText(fmtTick(tv - run0, step), gx, 8);
        }

        /* Setting a colour parses it: set it only when it changes; the same for the alpha that
         * dims what a search does not match. */
        var fill = "", alpha = 1;
        function setFill(c) {
            if (c !== fill) { fill = c; ctx.fillStyle = c; }
        }
        function setAlpha(a) {
            if (a !== alpha) { alpha = a; ctx.globalAlpha = a; }
        }
        tracks.forEach(function (tr) {
            var t = tr.t, named = t.k !== "busy" && t.k !== "bands";
            fill = "";
            setAlpha(1);
            ctx.fillStyle = "#1b2430";
            ctx.textAlign = "left";
            ctx.fillText(fitted(ctx, t.l, width - 4), 2, tr.y - HEAD / 2 + 1); /* whole in the list below */
            ctx.fillStyle = "#f6f8fa";
            ctx.fillRect(0, tr.y, width, tr.rows * ROW);
            /* While a search is on, a match's pixel column is its own: a dimmed mark drawn there
             * first does not hide it. */
            var lastCol = [], litCol = [];
            var i = lowerBound(tr.s, tr.n, v0 - tr.longest);
            for (; i < tr.n; i++) {
                var s = tr.s[i];
                if (s > v1) break;
                var e = s + t.d[i];
                if (e < v0) continue;
                var row = t.z ? t.z[i] : 0, y = tr.y + row * ROW + 1;
                var x0 = (s - v0) * k, x1 = (e - v0) * k;
                var lit = !nameMatch || (named && nameMatch[t.n[i]] === 1);
                setAlpha(lit ? 1 : 0.2);
                var cols = lit && nameMatch ? litCol : lastCol;
                if (x1 - x0 < 1) {
                    /* Narrower than a pixel: one mark per pixel column stands for all of them, so
                     * the rest cost a comparison each. */
                    var col = Math.floor(x0);
                    if (cols[row] === col) continue;
                    cols[row] = col;
                    setFill(colorOf(tr, i));
                    ctx.fillRect(col, y, 1, ROW - 2);
                    continue;
                }
                setFill(colorOf(tr, i));
                var cx0 = Math.max(x0, -1), cx1 = Math.min(x1, width + 1);
                ctx.fillRect(cx0, y, Math.max(1, cx1 - cx0 - (x1 - x0 > 3 ? 0.5 : 0)), ROW - 2);
                cols[row] = Math.floor(x1);
                /* A busy stretch's name is its track's, and a band's colour its key's: only events
                 * are labelled (white would not read on the paler groups either). */
                var label = t.k === "busy" || t.k === "bands" ? "" : fitted(ctx, names[t.n[i]], cx1 - cx0 - 6);
                if (label) {
                    setFill("#ffffff");
                    ctx.fillText(label, cx0 + 3, y + (ROW - 2) / 2 + 0.5);
                }
            }
        });
        setAlpha(1);
        drawOverlays(ctx, k);
        viewText.textContent = fmt(v0) + " to " + fmt(v1) + " of " + fmt(span);
        /* For the browser test (and a reader curious about a large profile): frames drawn, and the
         * last one's time. */
        root.setAttribute("data-tl-drawn", String((Number(root.getAttribute("data-tl-drawn")) || 0) + 1));
        root.setAttribute("data-tl-draw-ms", (performance.now() - started).toFixed(1));
    }
    var pending = false;
    function redraw() {
        if (pending) return;
        pending = true;
        window.requestAnimationFrame(function () { pending = false; draw(); });
    }

    /* The view: at least a microsecond wide, never past the run. */
    function setView(a, b) {
        var w = Math.min(span, Math.max(1000, b - a));
        a = Math.max(0, Math.min(a, span - w));
        v0 = a;
        v1 = a + w;
        redraw();
    }
    function zoom(f, at) {
        var c = at === undefined ? (v0 + v1) / 2 : at, w = (v1 - v0) * f;
        setView(c - (c - v0) * f, c - (c - v0) * f + w);
    }
    function pan(frac) {
        var w = v1 - v0;
        setView(v0 + w * frac, v1 + w * frac);
    }
    ctl.addEventListener("click", function (ev) {
        var what = ev.target.getAttribute && ev.target.getAttribute("data-tl");
        if (what === "in") zoom(0.5);
        else if (what === "out") zoom(2);
        else if (what === "left") pan(-0.25);
        else if (what === "right") pan(0.25);
        else if (what === "all") setView(0, span);
    });
    function measureView() { /* the key M: the view shown */
        measure = { a: v0, b: v1, x: NaN };
        showMeasure();
    }
    canvas.addEventListener("keydown", function (ev) {
        var keys = { "+": function () { zoom(0.5); }, "=": function () { zoom(0.5); }, "-": function () { zoom(2); },
                     ArrowLeft: function () { pan(-0.1); }, ArrowRight: function () { pan(0.1); },
                     Home: function () { setView(0, span); },
                     Escape: function () { measure = null; showMeasure(); },
                     m: measureView, M: measureView };
        if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
    });
    function timeAt(clientX) {
        var r = canvas.getBoundingClientRect();
        return v0 + (clientX - r.left) / r.width * (v1 - v0);
    }
    /* The wheel zooms about the pointer; scrolling down over the whole run scrolls the page. */
    canvas.addEventListener("wheel", function (ev) {
        if (ev.deltaY > 0 && v0 <= 0 && v1 >= span) return;
        ev.preventDefault();
        zoom(Math.exp(Math.max(-1, Math.min(1, ev.deltaY * 0.002))), timeAt(ev.clientX));
    }, { passive: false });
    /* A drag pans; a drag with shift held measures the interval it covers (Escape clears it). */
    var drag = null, measuring = false;
    canvas.addEventListener("pointerdown", function (ev) {
        if (ev.shiftKey) {
            measuring = true;
            measure = { a: clampT(timeAt(ev.clientX)), b: clampT(timeAt(ev.clientX)), x: ev.clientX };
            drag = null;
        } else {
            drag = { x: ev.clientX, v0: v0, v1: v1 };
        }
        try { canvas.setPointerCapture(ev.pointerId); } catch (e) { /* a pointer the browser no longer tracks */ }
    });
    /* A tap (a press that did not move: a phone has no hover) shows the tip of what it touched. */
    canvas.addEventListener("pointerup", function (ev) {
        if (measuring) {
            measuring = false;
            if (Math.abs(ev.clientX - measure.x) < 4) measure = null; /* a shift-click measures nothing */
            showMeasure();
            return;
        }
        var still = drag && Math.abs(ev.clientX - drag.x) < 4;
        drag = null;
        if (still) showTip(ev);
    });
    canvas.addEventListener("pointercancel", function () { drag = null; measuring = false; });
    function clampT(t) { return Math.max(0, Math.min(span, t)); }

    /* The measured interval in words, under the controls, and how busy each GPU was in it (from
     * the busy tracks: the union of each GPU's kernels, copies and memsets). */
    function busyIn(a, b) {
        return tracks.filter(function (tr) { return tr.t.k === "busy"; }).map(function (tr) {
            var sum = 0;
            for (var i = lowerBound(tr.s, tr.n, a - tr.longest); i < tr.n && tr.s[i] < b; i++) {
                var s = Math.max(a, tr.s[i]), e = Math.min(b, tr.s[i] + tr.t.d[i]);
                if (e > s) sum += e - s;
            }
            return { l: tr.t.l, f: b > a ? sum / (b - a) : 0 };
        });
    }
    function measured() {
        if (!measure) return null;
        var a = Math.min(measure.a, measure.b), b = Math.max(measure.a, measure.b);
        return { a: a, b: b, busy: busyIn(a, b) };
    }
    function showMeasure() {
        var m = measured();
        if (measureText) {
            measureText.hidden = !m;
            /* Its ends in ms from the start, with the decimals that tell them apart. */
            var dec = !m ? 3 : Math.max(3, Math.min(6, Math.ceil(-Math.log10(Math.max(1, m.b - m.a) / 1e6)) + 2));
            var at = function (t) { return ((t - run0) / 1e6).toFixed(dec) + " ms"; };
            measureText.textContent = !m ? "" : "Measured " + fmt(m.b - m.a) + ", from " + at(m.a) + " to " +
                at(m.b) + (m.busy.length ? ": " : "") + m.busy.map(function (g) {
                    return g.l + " " + (100 * g.f).toFixed(1) + "%";
                }).join(", ") + " (Esc clears)";
        }
        redraw();
    }

    /* Hover: the event under the pointer (or within 3 pixels) on its track's row. */
    function hit(clientX, clientY) {
        var r = canvas.getBoundingClientRect(), y = clientY - r.top, px = (v1 - v0) / r.width;
        var t = timeAt(clientX);
        for (var j = 0; j < tracks.length; j++) {
            var tr = tracks[j];
            if (y < tr.y || y >= tr.y + tr.rows * ROW) continue;
            var row = Math.floor((y - tr.y) / ROW), best = -1, bestDist = 3 * px;
            var i = lowerBound(tr.s, tr.n, t - tr.longest - bestDist);
            for (; i < tr.n && tr.s[i] <= t + bestDist; i++) {
                if ((tr.t.z ? tr.t.z[i] : 0) !== row) continue;
                var s = tr.s[i], e = s + tr.t.d[i];
                var dist = t < s ? s - t : t > e ? t - e : 0;
                if (dist <= bestDist) { best = i; bestDist = dist; }
            }
            return best < 0 ? null : { tr: tr, j: j, i: best };
        }
        return null;
    }
    function describe(h) {
        var t = h.tr.t, i = h.i;
        /* A host sample is an instant: its time alone. */
        var lines = [fmt(h.tr.s[i] - run0) + " from the start" + (t.k === "host" ? "" : ", " + fmt(t.d[i]))];
        var cat = t.c ? t.c[i] : KIND_CAT[t.k];
        if (t.i && t.i[i] >= 0) lines.push((t.k === "ranges" ? "NVTX domain " : "") + names[t.i[i]]);
        if (t.b && t.b[i] > 0) {
            var line = bytesText(t.b[i]);
            if (cat !== 5 && t.d[i] > 0) line += " at " + (t.b[i] / t.d[i]).toFixed(1) + " GB/s";
            lines.push(line);
        }
        /* The launch: the call that launched a GPU event and how long before it started; what a
         * call launched, and how long after. */
        var joined = linksOf(h.j, i);
        joined.slice(0, 3).forEach(function (o) {
            var other = tracks[o.j], gap = t.k === "api" ? other.s[o.i] - h.tr.s[i] : h.tr.s[i] - other.s[o.i];
            lines.push((t.k === "api" ? "launched " : "launched by ") + names[other.t.n[o.i]] + ", " + fmt(gap) +
                       (t.k === "api" ? " later" : " earlier") + " (" + other.t.l + ")");
        });
        if (joined.length > 3) lines.push("and " + (joined.length - 3) + " more events it launched");
        lines.push(t.l);
        /* A sample's whole stack, innermost first, the user's own frames marked. */
        var stack = [];
        for (var f = t.f && frames ? t.f[i] : -1; f >= 0; f = frames.p[f] ? f - frames.p[f] : -1)
            stack.push({ name: names[frames.n[f]], user: userFrame[f] === true });
        return { head: names[t.n[i]], lines: lines, stack: stack };
    }
    var tip = document.getElementById("tip");
    function showTip(ev) {
        var h = hit(ev.clientX, ev.clientY);
        setLink(h);
        if (!h || !tip) { if (tip) tip.hidden = true; return; }
        var d = describe(h);
        tip.textContent = "";
        var head = document.createElement("b"), frameList = null;
        head.textContent = d.head;
        tip.appendChild(head);
        tip.appendChild(document.createTextNode("\n" + d.lines.join("\n")));
        if (d.stack.length) {
            var users = d.stack.filter(function (f) { return f.user; }).length;
            tip.appendChild(document.createTextNode("\nstack, innermost first (" + d.stack.length + " frames" +
                (users ? "; yours in bold" : "") + "):"));
            var frameList = document.createElement("div");
            frameList.className = "tl-stack";
            d.stack.forEach(function (f, k) {
                var one = document.createElement("span");
                one.className = f.user ? "tl-frame tl-user" : "tl-frame";
                one.textContent = (k ? "\u2190 " : "at ") + f.name;
                frameList.appendChild(one);
            });
            tip.appendChild(frameList);
        }
        tip.hidden = false;
        tip.classList.remove("tl-wide");
        /* A stack taller than the window goes into columns, as many as it needs and the window's
         * width allows (a column at least 200 px): whole, and on the screen. */
        if (frameList) {
            frameList.style.columnCount = "";
            for (var cols = 2; tip.offsetHeight > window.innerHeight - 8 && (window.innerWidth - 30) / cols >= 200;
                 cols++) {
                tip.classList.add("tl-wide");
                frameList.style.columnCount = String(cols);
            }
        }
        var pad = 14, w = tip.offsetWidth, hh = tip.offsetHeight;
        var x = ev.clientX + pad, y = ev.clientY + pad;
        if (x + w > window.innerWidth - 4) x = ev.clientX - w - pad;
        if (y + hh > window.innerHeight - 4) y = ev.clientY - hh - pad;
        tip.style.left = Math.max(4, x) + "px";
        tip.style.top = Math.max(4, y) + "px";
        fig.setAttribute("data-hover", d.head);
    }
    /* The hovered event's launch link, drawn while the pointer is on it. */
    function setLink(h) {
        var to = h ? linksOf(h.j, h.i) : [];
        var next = to.length ? { j: h.j, i: h.i, to: to } : null;
        if ((next && link && next.j === link.j && next.i === link.i) || (!next && !link)) return;
        link = next;
        redraw();
    }
    canvas.addEventListener("pointermove", function (ev) {
        if (measuring) {
            measure.b = clampT(timeAt(ev.clientX));
            if (tip) tip.hidden = true;
            showMeasure();
            return;
        }
        if (drag) {
            var w = drag.v1 - drag.v0, dx = (ev.clientX - drag.x) / canvas.getBoundingClientRect().width * w;
            setView(drag.v0 - dx, drag.v1 - dx);
            if (tip) tip.hidden = true;
            return;
        }
        showTip(ev);
    });
    canvas.addEventListener("pointerleave", function () {
        if (tip) tip.hidden = true;
        setLink(null);
    });

    /* Search by name: the events whose name holds the text (any case) are drawn, the rest dimmed;
     * Enter (or Next) shows the next match by start, Shift+Enter (or Previous) the one before. */
    function find(text) {
        var q = text.trim().toLowerCase();
        matches = [];
        current = -1;
        nameMatch = null;
        if (q) {
            nameMatch = new Uint8Array(names.length);
            for (var n = 0; n < names.length; n++) nameMatch[n] = names[n].toLowerCase().indexOf(q) >= 0 ? 1 : 0;
            tracks.forEach(function (tr, j) {
                if (tr.t.k === "busy" || tr.t.k === "bands") return;
                for (var i = 0; i < tr.n; i++) if (nameMatch[tr.t.n[i]]) matches.push({ j: j, i: i, s: tr.s[i] });
            });
            matches.sort(function (x, y) { return x.s - y.s || x.j - y.j || x.i - y.i; });
            if (!matches.length) nameMatch = null; /* nothing to pick out: nothing dimmed */
        }
        fig.setAttribute("data-tl-matches", String(matches.length));
        if (foundText)
            foundText.textContent = !q ? "" : !matches.length ? "no event's name holds it" :
                matches.length + (matches.length === 1 ? " match" : " matches") + "; Enter for the next";
        redraw();
    }
    function goTo(step) {
        if (!matches.length) return;
        current = (current + step + matches.length) % matches.length;
        var m = matches[current], d = tracks[m.j].t.d[m.i], w = Math.max(4 * d, 20000), c = m.s + d / 2;
        setView(c - w / 2, c + w / 2);
        fig.setAttribute("data-tl-current", String(current));
        if (foundText)
            foundText.textContent = (current + 1) + " of " + matches.length + ": " + names[tracks[m.j].t.n[m.i]];
    }
    if (findBox) {
        findBox.addEventListener("input", function () { find(findBox.value); });
        findBox.addEventListener("keydown", function (ev) {
            if (ev.key === "Enter") { ev.preventDefault(); goTo(ev.shiftKey ? -1 : 1); }
            else if (ev.key === "Escape") { findBox.value = ""; find(""); }
        });
    }
    if (tools) tools.addEventListener("click", function (ev) {
        var what = ev.target.getAttribute && ev.target.getAttribute("data-tl");
        if (what === "next") goTo(1);
        else if (what === "prev") goTo(-1);
    });
    /* For the browser test: the name a hover at (x, y) of the canvas's box shows. */
    fig.tlHover = function (x, y) {
        var r = canvas.getBoundingClientRect();
        showTip({ clientX: r.left + x, clientY: r.top + y });
        draw(); /* now, so that the test reads what it drew */
        return fig.getAttribute("data-hover");
    };
    fig.tlTracks = tracks;
    /* For the browser test: the hovered event's launch link (its ends and the lines drawn, in the
     * canvas's CSS pixels), the measured interval, and a search. */
    fig.tlLink = function () { return link ? { j: link.j, i: link.i, to: link.to, lines: linkLines } : null; };
    fig.tlMeasured = measured;
    fig.tlColorOf = function (j, i) { return colorOf(tracks[j], i); };
    fig.tlFind = function (text) { if (findBox) findBox.value = text; find(text); return matches.length; };
    fig.tlView = function () { return [v0, v1]; }; /* the span shown, in ns from the start */
    /* Shows [a, b], in ms from the run's start (the tables' and the answer's time), as the
     * answer's small timeline asks on a click. */
    fig.tlShowMs = function (a, b) { setView(run0 + a * 1e6, run0 + b * 1e6); };
    window.addEventListener("resize", redraw);
    draw();
})();
