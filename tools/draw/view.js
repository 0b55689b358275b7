// tools/draw/view.js - the HTML view of `nanosmctl topology --format html`
// and `nanosm-route --draw html`: hover, hosts of a switch, and the route
// between two hosts as the forwarding tables give it.  No network access.
(function() {
'use strict';
const D = JSON.parse(document.getElementById('data').textContent);
const svg = document.getElementById('fabric');
const tip = document.getElementById('tip');
const panel = document.getElementById('panel');
const msg = document.getElementById('msg');
const N = D.nodes.map(function(a) {
	return {
		guid : a[0],
		type : a[1],
		name : a[2],
		lid : a[3],
		live : a[4],
		sw : a[5],
		box : a[6],
		row : a[7],
		lids : a[8]
	};
});
const link = new Map(); // node * 256 + port -> [node, port, cable]
const edgeCables = {};	// edge index -> cable indices
D.cables.forEach(function(c, i) {
	if (c[5] >= 0)
		(edgeCables[c[5]] = edgeCables[c[5]] || []).push(i);
	if (!c[4])
		return;
	link.set(c[0] * 256 + c[1], [ c[2], c[3], i ]);
	link.set(c[2] * 256 + c[3], [ c[0], c[1], i ]);
});
const lft = {};
if (D.lft) {
	Object.keys(D.lft.sw).forEach(function(k) {
		const s = atob(D.lft.sw[k]);
		const a = new Uint8Array(s.length);
		for (let i = 0; i < s.length; i++)
			a[i] = s.charCodeAt(i);
		lft[k] = a;
	});
}
const hostsOf = {};
const byLabel = new Map();
const list = document.getElementById('hostnames');
N.forEach(function(n, i) {
	if (n.type === 2)
		return;
	if (n.sw >= 0)
		(hostsOf[n.sw] = hostsOf[n.sw] || []).push(i);
	const label = byLabel.has(n.name) ? n.name + ' (' + n.guid + ')' : n.name;
	byLabel.set(label, i);
	const o = document.createElement('option');
	o.value = label;
	list.appendChild(o);
});
function label(i)
{
	for (const [k, v] of byLabel)
		if (v === i)
			return k;
	return N[i].name;
}

function nodeText(i)
{
	const n = N[i];
	let t = n.name + '\n' + (n.type === 2 ? 'switch' : 'host') + '  GUID ' + n.guid;
	if (n.lid)
		t += '\nLID ' + n.lid;
	if (n.lids.length > 1)
		t += '\nports ' + n.lids
				      .map(function(p) {
					      return p[0] + ': LID ' + p[1];
				      })
				      .join(', ');
	if (n.row >= 0)
		t += '\nrow: ' + D.rows[n.row];
	if (!n.live)
		t += '\nMISSING: in the reference, not in the fabric';
	if (n.type === 2 && hostsOf[i])
		t += '\n' + hostsOf[i].length + ' hosts (click to list them)';
	return t;
}
function cableText(ci)
{
	const c = D.cables[ci];
	return N[c[0]].name + ' port ' + c[1] + '  <->  ' + N[c[2]].name + ' port ' + c[3] +
	       (c[4] ? '' : '   MISSING');
}
function edgeText(e)
{
	const cs = edgeCables[e] || [];
	let t = cs.length + (cs.length === 1 ? ' cable' : ' cables') + '\n';
	t += cs.slice(0, 16).map(cableText).join('\n');
	if (cs.length > 16)
		t += '\n...';
	return t;
}

svg.addEventListener('mouseover', function(ev) {
	const g = ev.target.closest('g[data-n]');
	const e = ev.target.closest('[id^="e"]');
	let t = '';
	if (g)
		t = nodeText(+g.dataset.n);
	else if (e)
		t = edgeText(+e.id.slice(1));
	if (!t)
		return;
	tip.textContent = t;
	tip.style.display = 'block';
});
svg.addEventListener('mousemove', function(ev) {
	tip.style.left = (ev.clientX + 14) + 'px';
	tip.style.top = (ev.clientY + 14) + 'px';
});
svg.addEventListener('mouseout', function() {
	tip.style.display = 'none';
});

function showHosts(i)
{
	const hs = hostsOf[i] || [];
	panel.textContent = '';
	const head = document.createElement('div');
	head.textContent = nodeText(i).split('\n').slice(0, 3).join('\n') + '\n\n' +
			   (hs.length ? hs.length + ' hosts:' : 'no hosts');
	panel.appendChild(head);
	hs.forEach(function(h) {
		const row = document.createElement('div');
		const n = N[h];
		row.className = 'host';
		row.textContent = n.name + '  ' + n.guid + (n.lid ? '  LID ' + n.lid : '') +
				  (n.live ? '' : '  MISSING') + '  ';
		['from', 'to'].forEach(function(w) {
			const b = document.createElement('button');
			b.textContent = w;
			b.addEventListener('click', function() {
				document.getElementById(w === 'from' ? 'src' : 'dst').value =
				    label(h);
			});
			row.appendChild(b);
		});
		panel.appendChild(row);
	});
	const close = document.createElement('button');
	close.textContent = 'close';
	close.addEventListener('click', function() {
		panel.style.display = 'none';
	});
	panel.appendChild(close);
	panel.style.display = 'block';
}
svg.addEventListener('click', function(ev) {
	const g = ev.target.closest('g[data-n]');
	if (g && N[+g.dataset.n].type === 2)
		showHosts(+g.dataset.n);
});

function clear()
{
	svg.querySelectorAll('.hl').forEach(function(x) {
		x.classList.remove('hl');
	});
}
function mark(i)
{
	let b = N[i].box;
	if (b < 0 && N[i].sw >= 0)
		b = N[N[i].sw].box;
	const el = b >= 0 ? document.getElementById('b' + b) : null;
	if (el)
		el.classList.add('hl');
}
function markCable(ci)
{
	const e = D.cables[ci][5];
	const el = e >= 0 ? document.getElementById('e' + e) : null;
	if (!el)
		return;
	el.classList.add('hl');
	el.parentNode.appendChild(el); // drawn over the other cables
}
function firstPort(i)
{
	for (const p of N[i].lids)
		if (link.has(i * 256 + p[0]))
			return p;
	return null;
}
// Walk the forwarding tables from src's port to dst's LID.
function route(s, d)
{
	if (!D.lft)
		return {ok : false, why : D.why, hops : []};
	const sp = firstPort(s), dp = firstPort(d);
	if (!sp)
		return {ok : false, why : N[s].name + ' has no cabled port with a LID', hops : []};
	if (!dp)
		return {ok : false, why : N[d].name + ' has no cabled port with a LID', hops : []};
	const dlid = dp[1];
	const hops = [ N[s].name + '/' + sp[0] ];
	const nodes = [ s ], cables = [];
	let at = link.get(s * 256 + sp[0]);
	for (let k = 0; k < 64; k++) {
		const n = at[0];
		nodes.push(n);
		cables.push(at[2]);
		if (N[n].type !== 2) {
			hops.push(N[n].name + '/' + at[1]);
			if (n === d)
				return {
					ok : true,
					hops : hops,
					nodes : nodes,
					cables : cables,
					dlid : dlid
				};
			return {
				ok : false,
				why : 'LID ' + dlid + ' is delivered to ' + N[n].name + ', not ' +
					  N[d].name,
				hops : hops,
				nodes : nodes,
				cables : cables
			};
		}
		const t = lft[n];
		const out = t && dlid < t.length ? t[dlid] : 255;
		hops.push(N[n].name + ' (in ' + at[1] + ', out ' + (out === 255 ? '-' : out) + ')');
		if (out === 255)
			return {
				ok : false,
				why : 'black hole: ' + N[n].name + ' has no entry for LID ' + dlid,
				hops : hops,
				nodes : nodes,
				cables : cables
			};
		at = link.get(n * 256 + out);
		if (!at)
			return {
				ok : false,
				why :
				    N[n].name + ' port ' + out + ' (LID ' + dlid + ') has no cable',
				hops : hops,
				nodes : nodes,
				cables : cables
			};
	}
	return {
		ok : false,
		why : 'loop: more than 64 hops towards LID ' + dlid,
		hops : hops,
		nodes : nodes,
		cables : cables
	};
}
function show(srcName, dstName)
{
	clear();
	const s = byLabel.get(srcName), d = byLabel.get(dstName);
	msg.className = '';
	if (s === undefined || d === undefined) {
		msg.className = 'bad';
		msg.textContent = 'unknown host: ' + (s === undefined ? srcName : dstName);
		return null;
	}
	const r = route(s, d);
	(r.nodes || []).forEach(mark);
	(r.cables || []).forEach(markCable);
	msg.className = r.ok ? '' : 'bad';
	msg.textContent = (r.ok ? 'route to LID ' + r.dlid + ': ' : 'NO ROUTE: ' + r.why + ': ') +
			  r.hops.join(' -> ');
	window.nanosmRoute = r;
	return r;
}
document.getElementById('go').addEventListener('click', function() {
	show(document.getElementById('src').value, document.getElementById('dst').value);
});
document.getElementById('clear').addEventListener('click', function() {
	clear();
	msg.className = '';
	msg.textContent = '';
});
// #route=SRC,DST opens the page with that route shown (links can be shared)
const m = /^#route=([^,]+),(.+)$/.exec(decodeURIComponent(location.hash));
if (m) {
	document.getElementById('src').value = m[1];
	document.getElementById('dst').value = m[2];
	show(m[1], m[2]);
}
})();
