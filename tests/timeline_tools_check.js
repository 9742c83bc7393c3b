/* The check test_browser appends to a copy of a profiled program's page and an imported trace's:
 * the timeline's tools (templates/timeline.js) work as a reader uses them.
 * - Launch links: a hover over the stream's longest launched event outlines the API call that
 *   launched it (on an API track, started before it) and joins the two by a line, painted in the
 *   link's colour, the tip naming the call; a hover over that call joins it back to the event.
 * - Search: a part of that event's name, in capitals, matches as many events as hold it in any
 *   case (the page's data counted here), says so, draws the match in its colour and an event it
 *   does not match dimmed; Enter zooms in on the first match by start, again on the second,
 *   Shift+Enter on the first again.
 * - Measure: around the longest stretch of GPU busy time, a shift+drag over 35% of the canvas
 *   measures 35% of the view, leaves the view where it was, says how busy each GPU was in it (the
 *   busy tracks' data summed here) and Escape clears it; the key M measures the view shown; a
 *   plain drag still pans.
 * - The host stack (where window.mmprofWantStack is set): a hover over the sample with the deepest
 *   stack holding a user frame past the 13th lists every frame of it, the user's in bold, and the
 *   tip stays inside the window.
 * The answer goes into the root's data-tools-check: "ok" or the problems. */
window.addEventListener("load", function () {
    "use strict";
    var root = document.documentElement, bad = [];
    var fig = document.getElementById("tl-events"), src = document.getElementById("tl-data");
    function done() { root.setAttribute("data-tools-check", bad.length ? bad.join("; ") : "ok"); }
    if (!fig || !src || !fig.tlTracks || !fig.tlLink || !fig.tlFind || !fig.tlMeasured) {
        bad.push("no event timeline with its tools on the page");
        done();
        return;
    }
    var data = JSON.parse(src.textContent), tracks = fig.tlTracks, names = data.names;
    var canvas = fig.querySelector("canvas"), box = canvas.getBoundingClientRect(), ROW = 16;
    var tip = document.getElementById("tip");
    function row(tr, i) { return tr.t.z ? tr.t.z[i] : 0; }
    function view() { return fig.tlView(); }
    /* A hover at event i of track tr, at its middle (an instant: at its time), in the view shown. */
    function hoverAt(tr, i) {
        var v = view(), mid = tr.s[i] + tr.t.d[i] / 2;
        return fig.tlHover((mid - v[0]) / (v[1] - v[0]) * box.width, tr.y + row(tr, i) * ROW + 8);
    }
    /* The canvas as drawn last, read once a drawing (each read costs a copy). */
    var img = null;
    function snap() { /* through a copy made for reading, which the browser does not warn of */
        var copy = document.createElement("canvas"), g = copy.getContext("2d", { willReadFrequently: true });
        copy.width = canvas.width;
        copy.height = canvas.height;
        g.drawImage(canvas, 0, 0);
        img = g.getImageData(0, 0, copy.width, copy.height).data;
    }
    function pixel(x, y) {
        var dpr = canvas.width / box.width, o = 4 * (Math.floor(y * dpr) * canvas.width + Math.floor(x * dpr));
        return [img[o], img[o + 1], img[o + 2]];
    }
    function rgb(hex) { return [1, 3, 5].map(function (k) { return parseInt(hex.slice(k, k + 2), 16); }); }
    function near(a, b, tol) { return a.every(function (v, k) { return Math.abs(v - b[k]) <= tol; }); }
    function click(what) { fig.querySelector("button[data-tl='" + what + "']").click(); }

    /* The stream's longest event launched by a call on the page. */
    var stream = null, ev = -1;
    tracks.forEach(function (tr) {
        if (tr.t.k !== "stream" || !tr.t.r) return;
        for (var i = 0; i < tr.n; i++)
            if (tr.t.r[i] > 0 && (ev < 0 || tr.t.d[i] > stream.t.d[ev])) { stream = tr; ev = i; }
    });

    /* 1. Launch links. */
    if (!stream || ev < 0) bad.push("no stream event with its launch on the page");
    else {
        click("all");
        var head = hoverAt(stream, ev), l = fig.tlLink();
        if (head !== names[stream.t.n[ev]]) bad.push("the hover over the event showed " + head);
        else if (!l || l.j !== stream.j || l.i !== ev || l.to.length !== 1)
            bad.push("no launch link drawn for " + head);
        else {
            var call = tracks[l.to[0].j], ci = l.to[0].i, line = l.lines[0];
            if (call.t.k !== "api") bad.push("the launch of " + head + " is on a " + call.t.k + " track");
            if (call.s[ci] > stream.s[ev]) bad.push("the launch of " + head + " starts after it");
            if (tip.textContent.indexOf("launched by " + names[call.t.n[ci]]) < 0)
                bad.push("the tip does not name the launch");
            snap();
            var mx = (line[0] + line[2]) / 2, my = (line[1] + line[3]) / 2, got = pixel(mx, my);
            if (!near(got, rgb("#d6336c"), 60)) bad.push("the link's line is not painted: " + got + " at its middle");
            /* And back: the call, shown wide, joins the event. */
            var v = view(), w = Math.max(call.t.d[ci] * 3, 2000);
            fig.tlShowMs((call.s[ci] - w - data.run0) / 1e6, (call.s[ci] + call.t.d[ci] + w - data.run0) / 1e6);
            var back = hoverAt(call, ci), lb = fig.tlLink();
            if (back !== names[call.t.n[ci]]) bad.push("the hover over the call showed " + back);
            else if (!lb || lb.j !== call.j || lb.i !== ci ||
                     !lb.to.some(function (o) { return o.j === stream.j && o.i === ev; }))
                bad.push("the call " + back + " is not joined back to " + head);
            else if (tip.textContent.indexOf("launched " + head) < 0)
                bad.push("the call's tip does not name what it launched");
        }
    }

    /* 2. Search. */
    click("all");
    var name = stream && ev >= 0 ? names[stream.t.n[ev]] : names[tracks[0].t.n[0]];
    var query = name.slice(0, Math.min(12, name.length)).toUpperCase(), q = query.toLowerCase(), want = [];
    tracks.forEach(function (tr) {
        if (tr.t.k === "busy" || tr.t.k === "bands") return;
        for (var i = 0; i < tr.n; i++)
            if (names[tr.t.n[i]].toLowerCase().indexOf(q) >= 0) want.push({ tr: tr, i: i });
    });
    want.sort(function (a, b) { return a.tr.s[a.i] - b.tr.s[b.i] || a.tr.j - b.tr.j || a.i - b.i; });
    var found = fig.tlFind(query), says = fig.querySelector(".tl-found").textContent;
    if (found !== want.length || fig.getAttribute("data-tl-matches") !== String(want.length))
        bad.push("the search for " + query + " found " + found + ", " + want.length + " events hold it");
    else if (says.indexOf(String(want.length)) < 0) bad.push("the search says " + says);
    var findBox = fig.querySelector(".tl-find");
    function enter(shift) {
        findBox.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", shiftKey: !!shift, bubbles: true }));
    }
    /* The view is zoomed in on match m: narrower than the run, holding it, centred on it (unless
     * at the run's start or end). */
    function shows(m) {
        var v = view(), s = m.tr.s[m.i], e = s + m.tr.t.d[m.i], w = v[1] - v[0];
        return w < data.span && v[0] <= s && e <= v[1] &&
               (v[0] <= 0 || v[1] >= data.span || Math.abs((v[0] + v[1]) / 2 - (s + e) / 2) <= 0.01 * w);
    }
    /* At the view's scale, where event i of track tr is painted: its top left inside (under the
     * outline, over no label), or null when under 3 px wide or out of the view. */
    function inside(tr, i) {
        var v = view(), k = box.width / (v[1] - v[0]), x0 = Math.max(0, (tr.s[i] - v[0]) * k);
        var x1 = Math.min(box.width, (tr.s[i] + tr.t.d[i] - v[0]) * k);
        return x1 - x0 < 3 ? null : [x0 + 1.5, tr.y + row(tr, i) * ROW + 2.5];
    }
    /* The match shown is drawn in its colour, and an event of another name beside it dimmed. */
    function drawnDimmed() {
        snap();
        var m = want[0], at = inside(m.tr, m.i), full = fig.tlColorOf(m.tr.j, m.i);
        if (at && typeof full === "string" && !near(pixel(at[0], at[1]), rgb(full), 8))
            bad.push("the match is painted " + pixel(at[0], at[1]) + ", not " + full);
        var other = null;
        tracks.forEach(function (tr) {
            if (other || tr.t.k === "busy" || tr.t.k === "bands") return;
            for (var i = 0; i < tr.n && !other; i++) {
                var p = inside(tr, i), c = fig.tlColorOf(tr.j, i);
                if (p && typeof c === "string" && names[tr.t.n[i]].toLowerCase().indexOf(q) < 0)
                    other = { p: p, c: c };
            }
        });
        if (!other) bad.push("no event of another name in the view of the first match");
        else if (near(pixel(other.p[0], other.p[1]), rgb(other.c), 40))
            bad.push("an event the search does not match is not dimmed");
    }
    if (want.length) {
        enter();
        if (fig.getAttribute("data-tl-current") !== "0" || !shows(want[0]))
            bad.push("Enter did not show the first match");
        fig.tlHover(-100, -100); /* draws now, pointing at nothing */
        drawnDimmed();
        if (want.length > 1) {
            enter();
            if (fig.getAttribute("data-tl-current") !== "1" || !shows(want[1]))
                bad.push("Enter again did not show the second match");
            enter(true);
            if (fig.getAttribute("data-tl-current") !== "0" || !shows(want[0]))
                bad.push("Shift+Enter did not go back to the first");
        }
    }

    /* 3. Measure, then a plain drag. */
    function pointer(type, x, shift) {
        canvas.dispatchEvent(new PointerEvent(type, { clientX: box.left + x, clientY: box.top + 30, shiftKey: !!shift,
                                                      pointerId: 7, bubbles: true }));
    }
    function measureAndPan() {
        /* The view around the GPUs' longest busy stretch, from a stretch's length before it to one
         * after it: the measure covers most of the stretch. */
        var longest = null;
        tracks.forEach(function (tr) {
            if (tr.t.k !== "busy") return;
            for (var i = 0; i < tr.n; i++)
                if (!longest || tr.t.d[i] > longest.tr.t.d[longest.i]) longest = { tr: tr, i: i };
        });
        if (!longest) { bad.push("no GPU busy track"); return; }
        var ls = longest.tr.s[longest.i], ld = longest.tr.t.d[longest.i];
        fig.tlShowMs((ls - ld - data.run0) / 1e6, (ls + 2 * ld - data.run0) / 1e6);
        var before = view().join(":"), someBusy = false;
        pointer("pointerdown", 0.25 * box.width, true);
        pointer("pointermove", 0.45 * box.width, true);
        pointer("pointermove", 0.6 * box.width, true);
        pointer("pointerup", 0.6 * box.width, true);
        var m = fig.tlMeasured(), v = view(), span = v[1] - v[0];
        if (view().join(":") !== before) bad.push("a shift+drag moved the view");
        if (!m) bad.push("a shift+drag measured nothing");
        else {
            if (Math.abs(m.b - m.a - 0.35 * span) > span * 1e-6 + 1)
                bad.push("measured " + (m.b - m.a) + " ns of " + 0.35 * span);
            var text = fig.querySelector(".tl-measure");
            if (!text || text.hidden || text.textContent.indexOf("Measured") < 0) bad.push("the measure is not said");
            tracks.filter(function (tr) { return tr.t.k === "busy"; }).forEach(function (tr, g) {
                var sum = 0;
                for (var i = 0; i < tr.n; i++)
                    sum += Math.max(0, Math.min(m.b, tr.s[i] + tr.t.d[i]) - Math.max(m.a, tr.s[i]));
                var f = sum / (m.b - m.a), said = tr.t.l + " " + (100 * f).toFixed(1) + "%";
                someBusy = someBusy || f > 0.1;
                if (!m.busy[g] || Math.abs(m.busy[g].f - f) > 1e-9)
                    bad.push(tr.t.l + ": measured busy " + (m.busy[g] && m.busy[g].f) + ", the track holds " +
                             f);
                else if (text.textContent.indexOf(said) < 0) bad.push("the measure does not say " + said);
            });
        }
        if (m && !someBusy) bad.push("the measure over the longest busy stretch found no GPU busy");
        canvas.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
        if (fig.tlMeasured()) bad.push("Escape did not clear the measure");
        canvas.dispatchEvent(new KeyboardEvent("keydown", { key: "m", bubbles: true }));
        var all = fig.tlMeasured();
        if (!all || all.a !== v[0] || all.b !== v[1]) bad.push("the key M did not measure the view shown");
        canvas.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
        click("in");
        var zoomed = view();
        pointer("pointerdown", 0.5 * box.width, false);
        pointer("pointermove", 0.4 * box.width, false);
        pointer("pointerup", 0.4 * box.width, false);
        var panned = view(), want0 = zoomed[0] + 0.1 * (zoomed[1] - zoomed[0]);
        if (Math.abs(panned[0] - want0) > (zoomed[1] - zoomed[0]) * 1e-6 + 1)
            bad.push("a plain drag did not pan: " + zoomed + " to " + panned);
        if (fig.tlMeasured()) bad.push("a plain drag measured");
    }

    /* 4. The whole host stack. */
    function stack() {
        var frames = data.frames;
        if (!frames) { bad.push("no frame table on the page"); return; }
        var user = {}, best = null;
        frames.u.forEach(function (f) { user[f] = true; });
        tracks.forEach(function (tr) {
            if (tr.t.k !== "host" || !tr.t.f) return;
            for (var i = 0; i < tr.n; i++) {
                var chain = [];
                for (var f = tr.t.f[i]; f >= 0; f = frames.p[f] ? f - frames.p[f] : -1) chain.push(f);
                var deep = chain.some(function (f, k) { return k >= 13 && user[f]; });
                if (deep && (!best || chain.length > best.chain.length)) best = { tr: tr, i: i, chain: chain };
            }
        });
        if (!best) { bad.push("no sample with a user frame past the 13th"); return; }
        var t = best.tr.s[best.i];
        /* The sample's row in the middle of the window, where a reader's pointer would be. */
        window.scrollBy(0, canvas.getBoundingClientRect().top + best.tr.y - window.innerHeight / 2);
        fig.tlShowMs((t - 50000 - data.run0) / 1e6, (t + 50000 - data.run0) / 1e6);
        var head = hoverAt(best.tr, best.i);
        if (head !== names[best.tr.t.n[best.i]]) { bad.push("the hover over the sample showed " + head); return; }
        var shown = tip.querySelectorAll(".tl-frame"), users = tip.querySelectorAll(".tl-user");
        var wantUsers = best.chain.filter(function (f) { return user[f]; });
        if (shown.length !== best.chain.length)
            bad.push("the tip lists " + shown.length + " of the stack's " + best.chain.length + " frames");
        else if (shown[shown.length - 1].textContent.indexOf(names[frames.n[best.chain[best.chain.length - 1]]]) < 0)
            bad.push("the tip's last frame is not the outermost");
        if (users.length !== wantUsers.length)
            bad.push("the tip marks " + users.length + " user frames of " + wantUsers.length);
        else if (!wantUsers.length ||
                 users[users.length - 1].textContent.indexOf(names[frames.n[wantUsers[wantUsers.length - 1]]]) < 0)
            bad.push("the user's outermost frame is not marked");
        var r = tip.getBoundingClientRect();
        if (r.top < 0 || r.bottom > window.innerHeight)
            bad.push("the tip of " + best.chain.length + " frames runs out of the window: " + r.top + ".." + r.bottom +
                     " of " + window.innerHeight);
    }

    measureAndPan();
    if (window.mmprofWantStack) stack();
    done();
});
