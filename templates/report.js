/* The report's only script, and an optional one: the page reads completely without it. It turns
 * the chart marks' <title>s into a tooltip that appears at once, and sorts the kernel table when
 * a heading is clicked. Plain ES2015, no libraries. */
(function () {
    "use strict";
    var root = document.documentElement;

    /* Tooltips: each mark's title moves into data-tip, so the browser's slow native tooltip does
     * not show as well. */
    var marks = document.querySelectorAll("svg.chart rect");
    for (var i = 0; i < marks.length; i++) {
        var t = marks[i].querySelector("title");
        if (t) {
            marks[i].setAttribute("data-tip", t.textContent);
            marks[i].removeChild(t);
        }
    }
    var tip = document.createElement("div");
    tip.id = "tip";
    tip.hidden = true;
    document.body.appendChild(tip);

    function place(ev) {
        var pad = 14, w = tip.offsetWidth, h = tip.offsetHeight;
        var x = ev.clientX + pad, y = ev.clientY + pad;
        if (x + w > window.innerWidth - 4) x = ev.clientX - w - pad;
        if (y + h > window.innerHeight - 4) y = ev.clientY - h - pad;
        tip.style.left = Math.max(4, x) + "px";
        tip.style.top = Math.max(4, y) + "px";
    }
    document.addEventListener("mouseover", function (ev) {
        var text = ev.target.getAttribute && ev.target.getAttribute("data-tip");
        if (!text) {
            tip.hidden = true;
            return;
        }
        var lines = text.split("\n");
        tip.textContent = "";
        var head = document.createElement("b");
        head.textContent = lines[0];
        tip.appendChild(head);
        if (lines.length > 1) tip.appendChild(document.createTextNode("\n" + lines.slice(1).join("\n")));
        tip.hidden = false;
        place(ev);
    });
    document.addEventListener("mousemove", function (ev) {
        if (!tip.hidden) place(ev);
    });

    /* Sorting: by each cell's data-v (numbers when the heading says so), stable, toggling. */
    var tables = document.querySelectorAll("table.sortable");
    for (var k = 0; k < tables.length; k++) {
        (function (table) {
            var heads = table.querySelectorAll("th[data-sort]");
            for (var c = 0; c < heads.length; c++) {
                (function (th, col) {
                    th.tabIndex = 0;
                    function sort() {
                        var asc = th.getAttribute("aria-sort") !== "ascending";
                        for (var j = 0; j < heads.length; j++) heads[j].removeAttribute("aria-sort");
                        th.setAttribute("aria-sort", asc ? "ascending" : "descending");
                        var numeric = th.getAttribute("data-sort") === "num";
                        var body = table.tBodies[0];
                        var rows = Array.prototype.slice.call(body.rows).map(function (r, n) {
                            var cell = r.cells[col];
                            var v = cell ? (cell.getAttribute("data-v") || cell.textContent) : "";
                            return { row: r, key: numeric ? parseFloat(v) : v.toLowerCase(), n: n };
                        });
                        rows.sort(function (a, b) {
                            var d = a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
                            return (asc ? d : -d) || a.n - b.n;
                        });
                        rows.forEach(function (r) { body.appendChild(r.row); });
                    }
                    th.addEventListener("click", sort);
                    th.addEventListener("keydown", function (ev) {
                        if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); sort(); }
                    });
                })(heads[c], Array.prototype.indexOf.call(heads[c].parentNode.children, heads[c]));
            }
        })(tables[k]);
    }

    /* The answer's small timeline: a click on a band shows its stretch on the full timeline (which
     * takes milliseconds from the run's start, as the band's data-s and data-e are), with a little
     * around it, and brings the timeline into view. */
    var strips = document.querySelectorAll(".acct-strip span[data-s]");
    for (var st = 0; st < strips.length; st++) {
        strips[st].addEventListener("click", function () {
            var fig = document.getElementById("tl-events");
            if (!fig || !fig.tlShowMs) return;
            var s = parseFloat(this.getAttribute("data-s")), e = parseFloat(this.getAttribute("data-e"));
            var pad = (e - s) * 0.05;
            fig.tlShowMs(s - pad, e + pad);
            fig.scrollIntoView({ behavior: "smooth", block: "start" });
        });
    }

    /* Printing opens the folded run details, so paper has every fact. */
    window.addEventListener("beforeprint", function () {
        var folded = document.querySelectorAll("details");
        for (var d = 0; d < folded.length; d++) folded[d].open = true;
    });

    /* For the browser test: the script ran to the end, and how tall the page is. */
    root.setAttribute("data-js", "ready");
    root.setAttribute("data-height", String(Math.ceil(root.scrollHeight)));
    root.setAttribute("data-ready-ms", String(Math.round(performance.now())));
})();
