// ledger site: sortable and filterable tables. Optional: without JavaScript
// every table is already complete and in its natural order.
(function () {
  "use strict";
  function key(cell) {
    var v = cell.getAttribute("data-v");
    if (v === null) v = cell.textContent;
    var n = parseFloat(v);
    return (v !== "" && !isNaN(n) && isFinite(v)) ? n : v.toLowerCase();
  }
  function sortBy(table, col, th) {
    var body = table.tBodies[0];
    var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      if (typeof x !== typeof y) { x = String(x); y = String(y); }
      return x < y ? -dir : x > y ? dir : 0;
    });
    Array.prototype.forEach.call(th.parentNode.children, function (h) {
      h.removeAttribute("aria-sort");
    });
    th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function sortable(table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(heads, function (th, col) {
      var b = document.createElement("button");
      b.type = "button"; b.className = "sort";
      while (th.firstChild) b.appendChild(th.firstChild);
      th.appendChild(b);
      b.addEventListener("click", function () { sortBy(table, col, th); });
    });
  }
  function filterable(table) {
    var wrap = document.createElement("p");
    wrap.className = "filter";
    var input = document.createElement("input");
    input.type = "search";
    input.setAttribute("aria-label", "Filter");
    input.placeholder = document.documentElement.lang === "fr" ? "Filtrer…" : "Filter…";
    wrap.appendChild(input);
    var scroll = table.parentNode;
    scroll.parentNode.insertBefore(wrap, scroll);
    input.addEventListener("input", function () {
      var q = input.value.toLowerCase();
      Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
        r.hidden = q !== "" && r.textContent.toLowerCase().indexOf(q) < 0;
      });
    });
  }
  document.querySelectorAll("table[data-sortable]").forEach(sortable);
  document.querySelectorAll("table[data-filter]").forEach(filterable);
})();
