// A self-contained HTML report (inline CSS and JS, no network): clients laid out
// in a grid by tag values (first key = rows, second key = columns, the rest
// inside a cell), coloured by load; click or hover a task to see its active and
// standbys, click a client to see what it holds. User strings reach the page
// only as JSON data and are inserted with textContent.
import type { PlacementReport } from './report.js';

/** Most tasks the page embeds (the grid always shows every client and its load). */
export const HTML_MAX_TASKS = 50_000;

function scriptJson(x: unknown): string {
  return JSON.stringify(x).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page's style sheet (no user strings). */
const PAGE_STYLE = `<style>
body{font:13px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1d2430;background:#f6f7f9}
header{padding:12px 18px;background:#1d2430;color:#fff}
header h1{font-size:17px;margin:0 0 4px}
header .sum span{margin-right:16px}
.lv-absolute{color:#1a7f37}.lv-partial{color:#9a6700}.lv-least{color:#cf222e}
header .lv-absolute{color:#7ee2a0}header .lv-partial{color:#f5cf6b}header .lv-least{color:#ff9b96}
main{display:flex;gap:14px;padding:14px 18px;align-items:flex-start}
#gridwrap{flex:1;overflow:auto}
table.grid{border-collapse:collapse;background:#fff}
table.grid th{background:#e9ecf1;padding:5px 8px;font-weight:600;text-align:left;white-space:nowrap}
table.grid td{border:1px solid #d6dae1;vertical-align:top;padding:6px;min-width:120px}
.sub{font-size:11px;color:#57606a;margin:2px 0}
.cl{display:inline-block;margin:2px;padding:3px 6px;border-radius:4px;color:#fff;cursor:pointer;border:3px solid transparent;font-size:12px;min-width:58px}
.cl small{display:block;font-size:10px;opacity:.9}
.cl.dim{opacity:.25}
.cl.act{border-color:#111;box-shadow:0 0 0 2px #fff inset}
.cl.sb{border-color:#0b5cff;border-style:dashed}
.cl.sel{border-color:#8250df}
.cl .badge{display:inline-block;background:#fff;color:#111;border-radius:3px;padding:0 3px;margin-left:4px;font-size:10px;font-weight:700}
aside{width:360px;flex:none}
aside .box{background:#fff;border:1px solid #d6dae1;border-radius:6px;padding:10px;margin-bottom:12px}
#tasklist{max-height:420px;overflow:auto;margin-top:6px}
.task{padding:2px 6px;cursor:pointer;border-radius:3px;display:flex;justify-content:space-between}
.task:hover,.task.on{background:#eef3ff}
#detail{white-space:pre-wrap;font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
.legend{display:flex;align-items:center;gap:6px;margin-top:6px;font-size:11px}
.legend i{display:inline-block;width:120px;height:10px;background:linear-gradient(90deg,hsl(140,60%,38%),hsl(60,70%,42%),hsl(0,70%,45%))}
input{width:100%;box-sizing:border-box;padding:4px 6px}
.none{font-style:italic;color:#57606a}
</style>`;

/** The page's script: it reads the data block and builds the grid, the task list and the details (no user strings). */
const PAGE_SCRIPT = `<script>
(function(){
var D=JSON.parse(document.getElementById('data').textContent);
var K=D.keys, C=D.clients, T=D.tasks;
function el(tag,cls,text){var e=document.createElement(tag);if(cls)e.className=cls;if(text!=null)e.textContent=text;return e;}
var sum=document.getElementById('sum');
function add(t,c){var s=el('span',c,t);sum.appendChild(s);}
add('mode '+D.mode+' ('+D.assignor+', '+D.engine+')');
add(D.numStandbys+' standby/task');
add('keys: '+(K.length?K.join(' > '):'none'));
var TT=D.totals;add(C.length+' clients, '+TT.tasks+' tasks, '+TT.askedFor+' standbys asked for: '+TT.placed+' placed, '+TT.existing+' already there'+(TT.unplaced?', '+TT.unplaced+' not placed':''));
if(D.vsKafka){var V=D.vsKafka;add('vs kafka: spread better on '+V.tasks.better+', equal '+V.tasks.equal+', worse '+V.tasks.worse+' tasks; count spread '+V.balanced.countSpread+' (kafka '+V.kafka.countSpread+'); load spread '+(Math.round(V.balanced.loadSpread*100)/100)+' (kafka '+(Math.round(V.kafka.loadSpread*100)/100)+')');}
if(K.length){var L=D.totals.standbyLevels;add('absolute '+L.absolute,'lv-absolute');add('partial '+L.partial,'lv-partial');add('least '+L.least,'lv-least');}
var maxL=0,minL=Infinity;C.forEach(function(c){maxL=Math.max(maxL,c.load);minL=Math.min(minL,c.load);});
document.getElementById('lmin').textContent=minL===Infinity?'':minL.toFixed(2);
document.getElementById('lmax').textContent=maxL.toFixed(2);
function colour(load){var f=maxL>minL?(load-minL)/(maxL-minL):0;return 'hsl('+Math.round(140-140*f)+','+Math.round(60+10*f)+'%,'+Math.round(38+5*f)+'%)';}
function val(v){return v===null?'(no tag)':v;}
// A missing key: its own row, column or group (never merged with a value that reads the same), in italics.
function kv(k,v){return v===null?'no '+k+' tag':k+'='+v;}
function byValue(a,b){return a===b?0:a===null?1:b===null?-1:a<b?-1:1;}
function label(tag,v){var e=el(tag,v===null?'none':null,val(v));return e;}
function short(id){return /^[0-9a-f]{8}-/i.test(id)?id.slice(0,8)+'\\u2026'+id.slice(-4):id;}
// Grid: rows = first key, columns = second key, the rest grouped inside a cell.
var rows=[],cols=[],cells=new Map();
function uniq(arr,v){if(arr.indexOf(v)<0)arr.push(v);}
C.forEach(function(c,i){var r=K.length>0?c.t[0]:'all clients',co=K.length>1?c.t[1]:'';uniq(rows,r);uniq(cols,co);
 var key=JSON.stringify([r,co]);if(!cells.has(key))cells.set(key,new Map());var rest=JSON.stringify(c.t.slice(2));
 var m=cells.get(key);if(!m.has(rest))m.set(rest,[]);m.get(rest).push(i);});
rows.sort(byValue);cols.sort(byValue);
var boxes=[];
var table=el('table','grid'),head=el('tr');head.appendChild(el('th',null,K.length>0?K[0]+(K.length>1?' \\\\ '+K[1]:''):''));
cols.forEach(function(c){head.appendChild(label('th',c));});table.appendChild(head);
rows.forEach(function(r){var tr=el('tr');tr.appendChild(label('th',r));cols.forEach(function(co){var td=el('td');var m=cells.get(JSON.stringify([r,co]));
 if(m){m.forEach(function(list,rest){var vs=JSON.parse(rest);if(vs.length)td.appendChild(el('div','sub',vs.map(function(v,j){return kv(K[j+2],v);}).join(' ')));list.forEach(function(i){var c=C[i];var b=el('span','cl');b.style.background=colour(c.load);
  b.appendChild(document.createTextNode(short(c.id)));b.appendChild(el('small',null,'load '+(Math.round(c.load*100)/100)+' \\u00b7 '+c.na+'A '+c.ns+'S'));
  b.title=c.id+'\\n'+K.map(function(k,j){return kv(k,c.t[j]);}).join('\\n')+'\\ncapacity '+c.cap+', load '+c.load;
  b.onclick=function(){showClient(i);};boxes[i]=b;td.appendChild(b);});});}
 tr.appendChild(td);});table.appendChild(tr);});
document.getElementById('grid').appendChild(table);
function clear(){boxes.forEach(function(b){b.classList.remove('dim','act','sb','sel');var x=b.querySelector('.badge');if(x)x.remove();});}
function badge(i,t){var b=el('span','badge',t);boxes[i].appendChild(b);}
function showTask(ti){clear();var t=T[ti];boxes.forEach(function(b){b.classList.add('dim');});
 var lines=['task '+t.id+'  level '+t.l];
 if(t.a>=0){boxes[t.a].classList.remove('dim');boxes[t.a].classList.add('act');badge(t.a,'A');lines.push('active   '+C[t.a].id+' '+tagsOf(t.a));}
 t.e.forEach(function(e){var i=e[0];boxes[i].classList.remove('dim');boxes[i].classList.add('sb');badge(i,'E');lines.push('existing '+C[i].id+' '+tagsOf(i)+'  '+e[1]);});
 t.s.forEach(function(s,j){var i=s[0];boxes[i].classList.remove('dim');boxes[i].classList.add('sb');badge(i,'S'+(j+1));lines.push('standby  '+C[i].id+' '+tagsOf(i)+'  '+s[1]+(s[2]?'\\n  why: '+s[2]:''));});
 document.getElementById('detail').textContent=lines.join('\\n');}
function tagsOf(i){return K.length?'['+K.map(function(k,j){return kv(k,C[i].t[j]);}).join(' ')+']':'';}
function showClient(i){clear();boxes[i].classList.add('sel');var act=[],sb=[];
 T.forEach(function(t){if(t.a===i)act.push(t.id);t.s.forEach(function(s){if(s[0]===i)sb.push(t.id);});t.e.forEach(function(e){if(e[0]===i)sb.push(t.id+'(existing)');});});
 var c=C[i];document.getElementById('detail').textContent=c.id+'\\n'+tagsOf(i)+'\\ncapacity '+c.cap+', load '+c.load+'\\nactive ('+c.na+'): '+act.join(' ')+'\\nstandby ('+sb.length+'): '+sb.join(' ');}
var list=document.getElementById('tasklist');var items=[];
function renderList(q){list.textContent='';var n=0;for(var i=0;i<T.length&&n<2000;i++){var t=T[i];if(q&&t.id.indexOf(q)<0&&t.l.indexOf(q)<0)continue;n++;
 var d=el('div','task');d.appendChild(el('span',null,t.id));d.appendChild(el('span','lv-'+t.l,t.l));(function(ti,d){d.onclick=function(){items.forEach(function(x){x.classList.remove('on');});d.classList.add('on');showTask(ti);};d.onmouseenter=function(){showTask(ti);};})(i,d);
 items.push(d);list.appendChild(d);}
 if(n>=2000)list.appendChild(el('div','sub','\\u2026 more: use the filter'));
 if(D.truncated)list.appendChild(el('div','sub',D.truncated+' tasks not embedded (report limit)'));}
renderList('');document.getElementById('filter').oninput=function(e){renderList(e.target.value.trim());};
if(D.warnings.length)document.getElementById('detail').textContent='warnings:\\n'+D.warnings.join('\\n');
// Deep link: report.html#task=0_1 opens with that task traced.
var m=/^#task=(.+)$/.exec(location.hash);if(m){var want=decodeURIComponent(m[1]);for(var i=0;i<T.length;i++)if(T[i].id===want){showTask(i);break;}}
})();
</script>`;

/** What the page embeds: the report's summary, every client, and the first HTML_MAX_TASKS tasks with clients as indices. */
function pageData(r: PlacementReport): unknown {
  const index = new Map(r.clients.map((c, i) => [c.id, i]));
  const tasks = r.tasks.slice(0, HTML_MAX_TASKS).map((t) => ({
    id: t.task,
    a: t.active === null ? -1 : index.get(t.active)!,
    e: t.existing.map((x) => [index.get(x.client)!, x.level]),
    s: t.standbys.map((s) => [index.get(s.client)!, s.level, s.why ?? '']),
    l: t.level,
  }));
  const data = {
    mode: r.mode,
    assignor: r.assignor,
    engine: r.engine,
    numStandbys: r.numStandbys,
    keys: r.tagKeys,
    totals: r.totals,
    vsKafka: r.againstKafka ?? null,
    warnings: r.warnings,
    truncated: r.tasks.length - tasks.length,
    clients: r.clients.map((c) => ({ id: c.id, t: r.tagKeys.map((k) => (Object.hasOwn(c.tags, k) ? c.tags[k]! : null)), cap: c.capacity, load: c.load, na: c.active.length, ns: c.standby.length })),
    tasks,
  };
  return data;
}

export function htmlReport(r: PlacementReport, title = 'assignor standby report'): string {
  const data = pageData(r);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
${PAGE_STYLE}</head>
<body>
<header><h1>${esc(title)}</h1><div class="sum" id="sum"></div></header>
<main>
<div id="gridwrap"><div id="grid"></div>
<div class="legend">load <span id="lmin"></span><i></i><span id="lmax"></span>
&nbsp; <b style="border:3px solid #111;padding:0 4px">A</b> active &nbsp; <b style="border:3px dashed #0b5cff;padding:0 4px">S</b> standby</div></div>
<aside>
<div class="box"><b>Tasks</b> <span class="sub">(click or hover to trace its copies)</span>
<input id="filter" placeholder="filter, e.g. 0_1 or partial">
<div id="tasklist"></div></div>
<div class="box"><b>Details</b><div id="detail">Click a task or a client.</div></div>
</aside>
</main>
<script id="data" type="application/json">${scriptJson(data)}</script>
${PAGE_SCRIPT}
</body></html>
`;
}
