/* Layout checks the browser test appends to a copy of the report (test_browser.c): the sections
 * are there, every link of the navigation can be reached (on the screen, or by scrolling the
 * navigation sideways), and no visible text is drawn smaller than 9 CSS pixels, SVG text counted
 * at the size its chart is drawn. The answer goes into the root element's data-check attribute:
 * "ok", or the problems found, one per line. */
(function () {
    "use strict";
    var problems = [];
    var ids = ["findings", "ladder", "copies", "timeline", "regions", "summary", "speedup", "kernels",
               "notes"];
    ids.forEach(function (id) {
        if (!document.getElementById(id)) problems.push("no section " + id);
    });
    var nav = document.querySelector("nav.toc");
    var links = nav ? nav.querySelectorAll("a") : [];
    if (!nav || links.length < ids.length) problems.push("navigation missing or short");
    var scrolls = nav && /auto|scroll/.test(getComputedStyle(nav).overflowX);
    for (var i = 0; i < links.length; i++) {
        var a = links[i], r = a.getBoundingClientRect(), target = document.querySelector(a.getAttribute("href"));
        if (!target) problems.push("link " + a.textContent + " leads nowhere");
        if (r.width === 0 || r.height === 0) problems.push("link " + a.textContent + " not shown");
        var right = a.offsetLeft + a.offsetWidth;
        if (right > nav.clientWidth + 1 && !scrolls) problems.push("link " + a.textContent + " cut off");
    }
    function visible(el) {
        var r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0) return false;
        for (var e = el; e && e.nodeType === 1; e = e.parentNode)
            if (getComputedStyle(e).display === "none" || getComputedStyle(e).visibility === "hidden") return false;
        return true;
    }
    var small = {};
    var all = document.body.querySelectorAll("*");
    for (var j = 0; j < all.length; j++) {
        var el = all[j], own = "";
        for (var c = el.firstChild; c; c = c.nextSibling)
            if (c.nodeType === 3) own += c.nodeValue;
        if (!own.trim() || el.tagName === "SCRIPT" || el.tagName === "STYLE" || el.tagName === "title") continue;
        var size = parseFloat(getComputedStyle(el).fontSize);
        var svg = el.ownerSVGElement;
        if (svg) {
            var vb = svg.viewBox.baseVal;
            if (vb && vb.width > 0) size *= svg.getBoundingClientRect().width / vb.width;
        }
        if (size < 9 && visible(el)) {
            var key = (svg ? "svg " : "") + el.tagName.toLowerCase() + "." + (el.getAttribute("class") || "");
            small[key] = Math.min(small[key] || 99, Math.round(size * 10) / 10);
        }
    }
    Object.keys(small).forEach(function (k) { problems.push("text under 9 px: " + k + " at " + small[k] + " px"); });
    document.documentElement.setAttribute("data-check", problems.length ? problems.join("\n") : "ok");
})();
