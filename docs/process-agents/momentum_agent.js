// A workbench-agent/2 agent in Node.js: buys the name that rose most, one line at a time.
const readline = require("node:readline");
const PROTOCOL = "workbench-agent/2";

function decide(payload) {
  const quotes = payload.symbols, held = payload.portfolio.positions;
  const rise = (s) => quotes[s].last / quotes[s].history[0];
  const best = Object.keys(quotes).reduce((a, b) => (rise(b) > rise(a) ? b : a));
  if (held[best]) return { actions: [], rationale: `already hold ${best}` };
  const order = { symbol: best, side: "buy", quantity: 10 };
  return { actions: [order], rationale: `${best} rose most` };
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  const answer = message.type === "hello"
    ? { type: "hello", protocol: PROTOCOL }
    : { type: "decision", id: message.id, decision: decide(message.payload) };
  process.stdout.write(JSON.stringify(answer) + "\n");
});
