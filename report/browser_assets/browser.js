// Candidate browser for geomargin's enzyme ranking (models/browser.py).
// Every element is built with createElement/textContent: text from the
// inputs is never parsed as HTML.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("geomargin-data").textContent);
  var META = DATA.meta;
  var MOTIFS = META.motif_types;
  var SVGNS = "http://www.w3.org/2000/svg";
  var state = { sortKey: "conf", sortDir: -1, query: "", kind: "", rankedOnly: true, credibleOnly: false,
                minConf: 0, selected: null };

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === "text") { e.textContent = attrs[k]; }
        else if (k === "class") { e.className = attrs[k]; }
        else { e.setAttribute(k, attrs[k]); }
      });
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) { return; }
      e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return e;
  }
  function svg(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    return e;
  }
  function fmt(v, nd) { return (v === null || v === undefined) ? "" : Number(v).toFixed(nd); }
  function link(href, text) { return el("a", { href: href, target: "_blank", rel: "noopener", text: text }); }
  function sgd(orf) { return "https://www.yeastgenome.org/locus/" + encodeURIComponent(orf); }
  function kindChip(kind) { return el("span", { class: "kind kind-" + kind, text: kind }); }

  // ------------------------------------------------------------ header
  function metricText(key, label, pct) {
    var q = META.quality || {};
    var v = q[key];
    if (v === null || v === undefined) { return null; }
    var s = pct ? (100 * v).toFixed(1) + "%" : Number(v).toFixed(3);
    var lo = q[key + "_lo"], hi = q[key + "_hi"];
    if (lo !== undefined && lo !== null && hi !== undefined && hi !== null) {
      s += pct ? " [" + (100 * lo).toFixed(1) + ", " + (100 * hi).toFixed(1) + "]"
               : " [" + Number(lo).toFixed(3) + ", " + Number(hi).toFixed(3) + "]";
    }
    return el("span", { class: "metric" }, [label + " ", el("b", { text: s })]);
  }
  function pctOf(obj, k) {
    var v = obj[k];
    if (v === null || v === undefined) { return "?"; }
    var t = (100 * v).toFixed(1) + "%";
    var lo = obj[k + "_lo"], hi = obj[k + "_hi"];
    if (lo !== undefined && lo !== null && hi !== undefined && hi !== null) {
      t += " [" + (100 * lo).toFixed(1) + ", " + (100 * hi).toFixed(1) + "]";
    }
    return t;
  }
  function numOf(obj, k) {
    var v = obj[k];
    if (v === null || v === undefined) { return "?"; }
    var t = Number(v).toFixed(3);
    var lo = obj[k + "_lo"], hi = obj[k + "_hi"];
    if (lo !== undefined && lo !== null && hi !== undefined && hi !== null) {
      t += " [" + Number(lo).toFixed(3) + ", " + Number(hi).toFixed(3) + "]";
    }
    return t;
  }
  // the release history's test pair: what the biologist should read first
  function historyTestPart(h) {
    var n = Math.round(h.test_reactions || 0);
    var rel = String(h.test_split || "?").split("->");
    var older = rel[0], newer = rel.length > 1 ? rel[1] : "?";
    return [
      el("h2", { class: "test-head", text: "Test on real orphans: " + older + " \u2192 " + newer }),
      el("div", { class: "metrics test-metrics" }, [
        el("span", { class: "metric" }, ["hit@1 ", el("b", { text: pctOf(h, "test_hit@1") })]),
        el("span", { class: "metric" }, ["hit@5 ", el("b", { text: pctOf(h, "test_hit@5") })]),
        el("span", { class: "metric" }, ["hit@20 ", el("b", { text: pctOf(h, "test_hit@20") })]),
        el("span", { class: "metric" }, ["MRR ", el("b", { text: numOf(h, "test_mrr") })]),
        el("span", { class: "metric" }, ["random order: hit@1 " + pctOf(h, "test_random_hit@1") +
          ", hit@20 " + pctOf(h, "test_random_hit@20")])]),
      el("div", { class: "explain", text:
        "The orphan reactions of " + older + " were ranked by a run that saw only that release, with the " +
        "ranking (" + h.ranking + ") and confidence chosen on earlier releases only (" + (h.learned_from || "?") +
        "), and scored against the genes " + newer + " later gave " + n + " of them (" +
        (h.test_model_reactions ? Math.round(h.test_model_reactions) + " model reactions, both directions of a " +
          "reversible one counted once: " : "") + "a small test, read the intervals). " +
        "hit@k: share of those reactions with a later gene among the first k candidates. " +
        "MRR: mean of 1/rank of the first later gene. These are the figures to expect for the orphans below." }),
      el("div", { class: "explain", text:
        "Confidence on that test: the first candidates showed " + pctOf(h, "test_rank1_mean_confidence") +
        " on average and a later gene was first for " + pctOf(h, "test_rank1_later_gene_share") +
        " (calibration error " + numOf(h, "test_rank1_ece") + "; on this many reactions a perfectly " +
        "calibrated confidence shows about " + numOf(h, "test_rank1_ece_if_calibrated") + ", up to " +
        numOf(h, "test_rank1_ece_if_calibrated_hi") + " in 95% of draws). " + (h.test_credible_reactions ?
        "Reactions marked credible had a later gene first " + pctOf(h, "test_credible_top1_is_later") +
        " of the time, against " + pctOf(h, "test_all_top1_is_later") + " for all (" +
        Math.round(h.test_credible_reactions) + " credible). " :
        "No reaction is marked credible: on the history, no confidence picked out first candidates that were " +
        "right at least twice as often as all. ") + "Column 'confidence' below: the " +
        "probability that the candidate is among the genes a later release gives the reaction, if it gives it " +
        "any, learned from the release history's real orphans by rank, reaction kind and motif evidence; " +
        "'unconditional' multiplies it by the share of such orphans that gained any gene. Under it: how many " +
        "history reactions back it." }),
      h.shown_method === undefined ? null : el("div", { class: "explain", text:
        "The candidates below are ranked by " + h.shown_method + ", chosen on " + (h.shown_chosen_on || "?") +
        " (" + (h.shown_learned_from || "?") + ", the test pair included): over those pairs' " +
        Math.round(h.shown_history_reactions || 0) + " reactions hit@1 " + pctOf(h, "shown_history_hit@1") +
        ", MRR " + numOf(h, "shown_history_mrr") + "; cross-validated hit@1 " + pctOf(h, "shown_cv_hit@1") +
        ", MRR " + numOf(h, "shown_cv_mrr") + ". Its confidence is learned from the same pairs." })];
  }
  function buildHeader() {
    var q = META.quality || {};
    var metrics = el("div", { class: "metrics" }, [
      metricText("hit@10", "hit@10", true), metricText("hit@50", "hit@50", true),
      metricText("mrr", "MRR", false)]);
    var nCand = q.n_candidates ? " among about " + Math.round(q.n_candidates) + " candidate genes" : "";
    var nt = q.n_true_pairs || q.n_true;
    var nTrue = nt ? " (" + nt + " true genes of held-out reactions)" : "";
    var hist = META.history_test;
    var explain = hist ? el("div", { class: "explain", text:
      "Cross-validation of the same method: reactions with known genes were hidden, ranked like orphans" +
      nCand + nTrue + ". hit@10 / hit@50: fraction of their true genes ranked in the top 10 / 50. These " +
      "held-out reactions are easier than real orphans; the test above is what an orphan gets." }) :
      el("div", { class: "explain", text:
      "Cross-validation: reactions with known genes were hidden, ranked like orphans" +
      nCand + nTrue + ". hit@10 / hit@50: fraction of their true genes ranked in the top 10 / 50. " +
      "MRR: mean of 1/rank of the true gene (1 = always first). Column 'confidence' below: the " +
      "probability that the candidate is a true gene of the reaction, calibrated on the held-out " +
      "reactions' shown candidates, never above what those of the same reaction kind and evidence " +
      "pattern support, and conditional on the reaction having a gene among the candidates " +
      "(a real orphan may have none). On real orphans (the time split) it has not yet proved " +
      "calibrated: use it to order candidates, not as a probability. Under it: how many held-out " +
      "reactions had candidates like this one (same reaction kind, evidence and own kind of work); a " +
      "confidence from a handful of them is a guess." +
      (q.order === "confidence" ? " Candidates are listed by confidence (column '#'; the order with the " +
        "better cross-validated MRR), and the figures above are for that order." :
        q.order === "score" ? " Candidates are listed by score (column '#')." : "") });
    var cal = META.calibration || {};
    var calPart = cal.ece === null || cal.ece === undefined ? null : el("div", { class: "explain", text:
      "Confidence check (" + (cal.check || "cross-validation") + "): expected calibration error " +
      Number(cal.ece).toFixed(3) + ", Brier score " + Number(cal.brier).toFixed(3) +
      ". An orphan whose best candidate is below " + (100 * cal.threshold).toFixed(0) +
      "% is marked 'no credible candidate'." });
    var ts = META.time_split;
    var tsPart;
    if (hist) {
      tsPart = [];
    } else if (ts) {
      var pct = function (k) {
        if (ts[k] === null || ts[k] === undefined) { return "?"; }
        var t = (100 * ts[k]).toFixed(1) + "%";
        if (ts[k + "_lo"] !== undefined && ts[k + "_lo"] !== null && ts[k + "_hi"] !== undefined && ts[k + "_hi"] !== null) {
          t += " [" + (100 * ts[k + "_lo"]).toFixed(1) + ", " + (100 * ts[k + "_hi"]).toFixed(1) + "]";
        }
        return t;
      };
      tsPart = [
        el("div", { class: "metrics" }, [
          el("span", { class: "metric" }, ["time split hit@1 ", el("b", { text: pct("hit@1") })]),
          el("span", { class: "metric" }, ["hit@20 ", el("b", { text: pct("hit@20") })]),
          el("span", { class: "metric" }, ["random order: hit@1 " + pct("random_hit@1") + ", hit@20 " + pct("random_hit@20")])]),
        el("div", { class: "explain", text:
          "Time split, on real orphans: the orphan reactions of " + ts.older + " were ranked by a run that saw only " +
          "that release (method " + ts.ranking + ") and scored against the genes " + ts.newer + " later gave " +
          Math.round(ts.reactions) + " of them. hit@k: share of those reactions with a later gene in the top k. " +
          "This is closer to what an orphan gets than the cross-validated figures above." })];
    } else {
      tsPart = [el("div", { class: "explain", text:
        "Time split (the test on real orphans: an older release's orphans against the genes a later release " +
        "gave them): not run in this job. Config metabolic.time_split.in_main_job adds it; " +
        "target results/metabolic/time_split_validation.tsv runs it alone." })];
    }
    var tg = META.top_gene;
    var topPart = tg ? el("div", { class: "explain warn", text:
      (tg.name && tg.name !== tg.gene ? tg.name + " (" + tg.gene + ")" : tg.gene) + " is the first candidate of " +
      tg.reactions +
      " ranked orphans (" + (100 * tg.share).toFixed(1) + "%). The validation does not earn that: it was " +
      "first for " + tg.validated_tops + " held-out reactions and a true gene of " + tg.validated_correct +
      " of them. Read its first places with doubt and look at the next candidates." }) : null;
    var nR = DATA.reactions.length;
    var nRanked = DATA.reactions.filter(function (r) { return r.ranked; }).length;
    return el("header", null, [
      el("h1", { text: "Candidate enzymes and transporters for orphan reactions" }),
      el("div", { class: "meta", text: "Input set: " + (META.dataset || "?") + " \u2022 method: " +
        (META.method || "?") + " \u2022 " + nR + " orphan reactions, " + nRanked + " ranked" }), topPart
      ].concat(hist ? historyTestPart(hist).concat([el("h2", { class: "test-head",
        text: "Cross-validation on reactions with known genes" })]) : [])
      .concat([metrics, explain, calPart]).concat(tsPart));
  }

  // ------------------------------------------------------------ reaction list
  var COLUMNS = [
    { key: "name", label: "Reaction" }, { key: "kind", label: "Kind" },
    { key: "subsystem", label: "Subsystem" }, { key: "conf", label: "Best conf.", num: true },
    { key: "best", label: "Best score", num: true }, { key: "n", label: "Cand.", num: true }];
  function confBar(v) {
    if (v === null || v === undefined) { return el("span"); }
    var bar = el("span", { class: "bar" }, [el("span", { class: "fill", style: "width:" + Math.round(100 * v) + "%" })]);
    return el("span", { class: "conf" }, [el("span", { class: "num", text: (100 * v).toFixed(1) + "%" }), bar]);
  }
  function thinSupport(v) { return v !== null && v !== undefined && v < META.thin_support; }
  function likeCount(v) { return v > 0 && v < 1 ? "<1" : fmt(v, 0); }
  function likeNote(v) {
    if (v === null || v === undefined) { return ""; }
    return el("div", { class: "like", text: "from " + likeCount(v) + " held-out case" +
      (Math.round(v) === 1 ? "" : "s") + " like it",
      title: "held-out reactions (each fold group, a reaction with its near-copies, once) whose shown candidates had the same reaction " +
        "kind, evidence and own kind of work as this one: the confidence rests on these" });
  }
  var searchText = {};
  DATA.reactions.forEach(function (r) {
    var parts = [r.id, r.model_id, r.name, r.kind, r.subsystem, r.ec, r.equation];
    (DATA.candidates[r.id] || []).forEach(function (c) { parts.push(c.gene, c.name); });
    searchText[r.id] = parts.join(" | ").toLowerCase().replace(/\s+/g, " ");
  });
  function visibleReactions() {
    var q = state.query.toLowerCase().trim().replace(/\s+/g, " ");
    var rows = DATA.reactions.filter(function (r) {
      if (state.rankedOnly && !r.ranked) { return false; }
      if (state.credibleOnly && (!r.ranked || r.no_credible)) { return false; }
      if (state.minConf > 0 && !(r.conf !== null && r.conf >= state.minConf)) { return false; }
      if (state.kind && r.kind !== state.kind) { return false; }
      return !q || searchText[r.id].indexOf(q) >= 0;
    });
    var k = state.sortKey, d = state.sortDir;
    rows.sort(function (a, b) {
      var x = a[k], y = b[k];
      if (x === null || x === undefined) { return 1; }
      if (y === null || y === undefined) { return -1; }
      if (typeof x === "string") { x = x.toLowerCase(); y = String(y).toLowerCase(); }
      if (x < y) { return -d; }
      if (x > y) { return d; }
      return a.id < b.id ? -1 : 1;
    });
    return rows;
  }
  function renderList() {
    var rows = visibleReactions();
    var tbody = document.querySelector("#reactions tbody");
    tbody.textContent = "";
    rows.forEach(function (r) {
      var nameCell = el("td", null, [el("div", { text: r.name || r.id }), el("div", { class: "rid", text: r.id })]);
      var kindCell = el("td", null, [kindChip(r.kind), r.diffusion ? el("span", { class: "flag", text: "diffusion" }) : null]);
      var tr = el("tr", { "data-id": r.id, class: (r.ranked ? "" : "unranked") + (r.id === state.selected ? " selected" : "") }, [
        nameCell, kindCell, el("td", { text: r.subsystem }),
        el("td", { class: "num" + (r.no_credible ? " weak" : "") + (thinSupport(r.like) ? " thin" : ""),
          text: r.conf === null ? "" : (100 * r.conf).toFixed(1) + "%",
          title: r.like === null || r.like === undefined ? "" : "the best candidate's confidence rests on " +
            likeCount(r.like) + " held-out case(s) like it" +
            (thinSupport(r.like) ? ": few, a guess (italic)" : "") }),
        el("td", { class: "num", text: fmt(r.best, 3) }), el("td", { class: "num", text: String(r.n) })]);
      tr.addEventListener("click", function () { select(r.id); });
      tbody.appendChild(tr);
    });
    document.getElementById("count").textContent =
      "Showing " + rows.length + " of " + DATA.reactions.length + " orphan reactions";
    document.querySelectorAll("#reactions th").forEach(function (th) {
      th.classList.remove("sorted-asc", "sorted-desc");
      if (th.getAttribute("data-key") === state.sortKey) {
        th.classList.add(state.sortDir > 0 ? "sorted-asc" : "sorted-desc");
      }
    });
  }
  function buildLeft() {
    var search = el("input", { type: "search", id: "search", placeholder: "Search reaction, subsystem, EC or gene\u2026" });
    search.addEventListener("input", function () { state.query = search.value; renderList(); });
    var kind = el("select", { id: "kind" }, [el("option", { value: "", text: "all kinds" })].concat(
      ["enzymatic", "transport", "spontaneous"].map(function (k) { return el("option", { value: k, text: k }); })));
    kind.addEventListener("change", function () { state.kind = kind.value; renderList(); });
    var ranked = el("input", { type: "checkbox", id: "ranked-only" });
    ranked.checked = state.rankedOnly;
    ranked.addEventListener("change", function () { state.rankedOnly = ranked.checked; renderList(); });
    var credible = el("input", { type: "checkbox", id: "credible-only" });
    credible.addEventListener("change", function () { state.credibleOnly = credible.checked; renderList(); });
    var minConf = el("input", { type: "number", id: "min-confidence", min: "0", max: "100", step: "1", value: "0",
      title: "hide reactions whose best candidate's confidence is below this (%)" });
    minConf.addEventListener("input", function () {
      var v = Number(minConf.value);
      state.minConf = isFinite(v) && v > 0 ? v / 100 : 0;
      renderList();
    });
    var head = el("tr", null, COLUMNS.map(function (c) {
      var th = el("th", { "data-key": c.key, class: c.num ? "num" : "", text: c.label });
      th.addEventListener("click", function () {
        if (state.sortKey === c.key) { state.sortDir = -state.sortDir; }
        else { state.sortKey = c.key; state.sortDir = c.num ? -1 : 1; }
        renderList();
      });
      return th;
    }));
    return el("div", { id: "left" }, [
      el("div", { class: "controls" }, [search, kind, el("label", null, [ranked, " ranked only"]),
        el("label", null, [credible, " credible only"]),
        el("label", null, ["best confidence ≥ ", minConf, "%"])]),
      el("div", { class: "count", id: "count" }),
      el("div", { class: "tablewrap" }, [el("table", { id: "reactions" }, [el("thead", null, [head]), el("tbody")])])]);
  }

  // ------------------------------------------------------------ profile plot
  function profilePlot(reaction, cand) {
    var W = 170, H = 60, P = 4;
    var g = DATA.profiles[cand.key];
    var m = DATA.own_mean[reaction.id + "|" + cand.key] || DATA.nb_mean[reaction.id];
    var box = el("div", { class: "plot" });
    if (!g || !m || !m.length) {
      var noNeighbours = MOTIFS.every(function (t) { return !reaction.neighbours[t]; });
      box.appendChild(el("span", { class: "hint", text: !g ? "no expression data"
        : noNeighbours ? "no motif neighbour genes to compare with" : "neighbours have no expression data" }));
      return box;
    }
    var n = g.length, lim = 0.5;
    g.concat(m).forEach(function (v) { if (v !== null && Math.abs(v) > lim) { lim = Math.abs(v); } });
    lim = Math.min(lim, 5);
    function x(i) { return P + (W - 2 * P) * (n > 1 ? i / (n - 1) : 0.5); }
    function y(v) { return H / 2 - (H / 2 - P) * Math.max(-1, Math.min(1, v / lim)); }
    var s = svg("svg", { width: W, height: H, viewBox: "0 0 " + W + " " + H, class: "profile", role: "img" });
    var title = svg("title");
    title.textContent = "Standardized expression over " + n + " conditions: " + cand.gene +
      " (blue) and the mean of the reaction's motif neighbours (orange)";
    s.appendChild(title);
    s.appendChild(svg("line", { x1: P, x2: W - P, y1: H / 2, y2: H / 2, stroke: "#c8cdd2", "stroke-width": 1 }));
    [[m, "#e07b00"], [g, "#1f5fbf"]].forEach(function (pair) {
      var pts = [], segs = [];
      pair[0].forEach(function (v, i) {
        if (v === null) { if (pts.length) { segs.push(pts); pts = []; } return; }
        pts.push(x(i).toFixed(1) + "," + y(v).toFixed(1));
      });
      if (pts.length) { segs.push(pts); }
      segs.forEach(function (p) {
        s.appendChild(svg("polyline", { points: p.join(" "), fill: "none", stroke: pair[1], "stroke-width": 1.3 }));
      });
    });
    box.appendChild(s);
    return box;
  }

  // ------------------------------------------------------------ details
  function select(id) {
    state.selected = id;
    if (decodeURIComponent(location.hash.slice(1)) !== id) {
      history.replaceState(null, "", "#" + encodeURIComponent(id));
    }
    renderList();
    renderDetail();
  }
  function chips(items) {
    if (!items.length) { return el("span", { class: "hint", text: "none" }); }
    return el("div", { class: "chips" }, items.map(function (t) { return el("span", { text: t }); }));
  }
  function renderDetail() {
    var box = document.getElementById("detail");
    box.textContent = "";
    var r = DATA.reactions.filter(function (x) { return x.id === state.selected; })[0];
    if (!r) {
      box.appendChild(el("p", { class: "hint", text: "Click a reaction to see its candidate genes and their evidence." }));
      return;
    }
    var site = META.reaction_url ? META.reaction_url.replace(/^https?:\/\//, "").split("/")[0] : "";
    var idPart = META.reaction_url && r.model_id
      ? link(META.reaction_url.split("{id}").join(encodeURIComponent(r.model_id)), r.id + " (" + site + ")")
      : el("span", { class: "rid", text: r.id });
    var nb = MOTIFS.map(function (t) { return t + " " + (r.neighbours[t] || 0); }).join(", ");
    box.appendChild(el("h2", { id: "detail-title", text: r.name || r.id }));
    box.appendChild(el("div", { class: "facts" }, [
      idPart, " \u2022 ", kindChip(r.kind), r.diffusion ? el("span", { class: "flag", text: "named as diffusion" }) : null,
      r.subsystem ? " \u2022 subsystem " + r.subsystem : "", r.ec ? " \u2022 EC " + r.ec : "",
      el("br"), el("span", { class: "eq", text: r.equation }), el("br"),
      "Motif neighbour genes: " + nb + ".",
      r.ranked && r.ranked_on && r.ranked_on.split("+").indexOf("motifs") < 0
        ? el("div", { class: "hint", text: "Ranked without motif neighbour genes, on its " +
            r.ranked_on.split("+").join(" and ") + " only: weaker evidence than most of the validation covers." })
        : "",
      r.near_copy_genes
        ? el("div", { class: "hint", text: "Its near-copies (the same reaction written for other acyl chains) have genes: " +
            r.near_copy_genes.split(";").join(", ") + ". The ranking never reads them: check by hand whether one does this reaction." })
        : "",
      r.ranked ? "" : el("div", { class: "hint", text: "Not ranked: " + r.reason })]));
    if (r.ranked && r.no_credible) {
      box.appendChild(el("div", { class: "notice", id: "no-credible", text: META.credible_possible === false
        ? "No credible candidate: on the release history, no confidence picked out first candidates that were " +
          "right at least twice as often as all, so no orphan is marked credible (this one's best candidate: " +
          (100 * r.conf).toFixed(1) + "%). The candidates are listed; test them only with other evidence."
        : "No credible candidate: the best candidate's confidence, " + (100 * r.conf).toFixed(1) +
          "%, is below the threshold of " + (100 * META.confidence_threshold).toFixed(1) + "%. The candidates " +
          "are listed; test them only with other evidence." }));
    }
    var cands = DATA.candidates[r.id] || [];
    if (!cands.length) { return; }
    box.appendChild(el("div", { class: "legend" }, [
      "Plot: standardized expression profile of the candidate (",
      el("span", { style: "color:#1f5fbf", text: "blue" }),
      ") against the mean profile of the reaction's motif neighbours (",
      el("span", { style: "color:#e07b00", text: "orange" }), "), over " + META.n_conditions + " conditions."]));
    var head = el("tr", null, ["#", "Candidate", "Score", "Confidence", "Co-expression r",
      "Supporting neighbours", "Shared domains", "Shared compartments", "Expression"].map(function (h) {
      return el("th", { text: h });
    }));
    var tbody = el("tbody");
    cands.forEach(function (c) {
      var geneCell = el("td", { class: "gene" }, [
        link(sgd(c.gene), c.gene), c.name && c.name !== c.gene ? " " + c.name : "",
        el("div", { class: "desc", text: c.desc })]);
      var co = el("td", null, MOTIFS.filter(function (t) { return c.coexpr[t] !== null; }).map(function (t) {
        return el("div", { class: "num", text: t + " " + fmt(c.coexpr[t], 2) });
      }));
      var sup = el("td", null, c.support.map(function (s) {
        return el("div", { class: "nowrap" }, [link(sgd(s[0]), s[0]), s[1] && s[1] !== s[0] ? " " + s[1] : "",
          el("span", { class: "motif", text: " " + s[2] })]);
      }));
      tbody.appendChild(el("tr", { class: "candidate" }, [
        el("td", { class: "num", text: String(c.rank) }), geneCell,
        el("td", { class: "num", text: fmt(c.score, 3) }),
        el("td", null, [confBar(c.conf), likeNote(c.like)]),
        co, sup, el("td", null, [chips(c.domains)]), el("td", null, [chips(c.comps)]),
        el("td", null, [profilePlot(r, c)])]));
      var ev = el("td", { class: "evidence", text: "Evidence: " + c.evidence });
      ev.colSpan = 9;
      tbody.appendChild(el("tr", { class: "evidence-row" }, [ev]));
    });
    box.appendChild(el("table", { id: "candidates" }, [el("thead", null, [head]), tbody]));
  }

  // ------------------------------------------------------------ start
  document.body.appendChild(buildHeader());
  document.body.appendChild(el("main", null, [buildLeft(), el("section", { id: "detail" })]));
  function fromHash() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (id && DATA.reactions.some(function (r) { return r.id === id; })) {
      var r = DATA.reactions.filter(function (x) { return x.id === id; })[0];
      if (!r.ranked) { state.rankedOnly = false; document.getElementById("ranked-only").checked = false; }
      select(id);
    } else {
      renderList();
      renderDetail();
    }
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
