// Lakeside Field Station: marks the current page in the menu and fills the readings table.
(function () {
  "use strict";

  // Resolve against this script's own URL, so every page can include it whatever its depth.
  var script = document.currentScript;
  var itemsURL = new URL("../data/items.json", script.src);

  document.addEventListener("DOMContentLoaded", function () {
    markCurrentPage();
    var table = document.getElementById("readings");
    if (table) loadReadings(table);
  });

  function markCurrentPage() {
    var here = location.pathname.replace(/index\.html$/, "");
    document.querySelectorAll("nav a").forEach(function (link) {
      var path = new URL(link.getAttribute("href"), location.href).pathname.replace(/index\.html$/, "");
      if (path === here) link.setAttribute("aria-current", "page");
    });
  }

  function loadReadings(table) {
    var body = table.querySelector("tbody");
    fetch(itemsURL)
      .then(function (response) {
        if (!response.ok) throw new Error(response.status + " " + response.statusText);
        return response.json();
      })
      .then(function (data) {
        body.textContent = "";
        data.items.forEach(function (item) {
          var row = document.createElement("tr");
          cell(row, item.name);
          cell(row, item.kind);
          cell(row, item.value.toFixed(1) + "\u00a0" + item.unit, "num");
          cell(row, new Date(item.updated).toLocaleString());
          body.appendChild(row);
        });
        var caption = table.querySelector("caption");
        if (caption) caption.textContent = "Readings from " + data.station + " (" + data.items.length + " sensors)";
      })
      .catch(function (error) {
        body.innerHTML = "";
        var row = document.createElement("tr");
        cell(row, "Could not load " + itemsURL.pathname + ": " + error.message).colSpan = 4;
        body.appendChild(row);
      });
  }

  function cell(row, text, className) {
    var td = document.createElement("td");
    td.textContent = text;
    if (className) td.className = className;
    row.appendChild(td);
    return td;
  }
})();
