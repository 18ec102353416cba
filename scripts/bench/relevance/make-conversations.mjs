#!/usr/bin/env node
// Writes packages/test-support/fixtures/relevance/conversations.json: the conversational
// relevance set of `npm run bench:quality` (issue 31). Six long
// conversations between two friends, a dozen dated sessions each, stored
// turn by turn as facts "Speaker: text", with questions labelled with the
// turns that hold their evidence, in five kinds:
//
//   single-hop   one turn answers it, in other words than the question's
//   multi-hop    two turns of different sessions together answer it
//   temporal     "when": the turn says "yesterday" or "last week", the
//                session's date is in its greeting turn
//   open-domain  what the turn implies, not what it says
//   paraphrase   the turn says it with none of the question's content words
//
// and the difficulties seen on real conversations: the answer in the turn
// after the one that shares the question's words ("Did you go?" - "Yes,
// on Friday with my kids"), people named in questions but "I" and "you"
// in turns, relative dates, inflections and near-synonyms (ran/running,
// kid/children, bought/purchase). Deterministic (a seeded PRNG): run it
// again and the file is the same. Usage: node make-conversations.mjs [OUT]

import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { prng } from '@memoryd/test-support';

const OUT = process.argv[2] ?? fileURLToPath(new URL('../../../packages/test-support/fixtures/relevance/conversations.json', import.meta.url));

let rand = prng(31);
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
const shuffle = (xs) => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};

const PAIRS = [
  ['Maria', 'Jonas'],
  ['Aisha', 'Tom'],
  ['Kenji', 'Laura'],
  ['Priya', 'Daniel'],
  ['Sofia', 'Marcus'],
  ['Elena', 'Sam'],
];

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** A date as the greeting says it and as a question's answer would. */
function dateOf(d) {
  return { day: DAYS[d.getUTCDay()], text: `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}` };
}

/*
 * Life events. Each one: `slots` picked per speaker; `ask`, the partner's
 * turn before it (it holds the words a question will use, as real prompts
 * do); `say`, the speaker's evidence turn (other words, a relative date);
 * `reply`, the partner's turn after; and `questions`, by kind. `say`
 * places the event relative to the session's date (`whenText`, one of
 * RELATIVE), which only the session's greeting turn gives.
 */
const EVENTS = [
  {
    id: 'pet',
    slots: { breed: ['beagle', 'border collie', 'dachshund', 'golden retriever'], name: ['Biscuit', 'Pepper', 'Nacho', 'Luna'] },
    ask: (o) => `Did you end up getting the dog you kept talking about?`,
    say: (s) => `Yes! We brought home a little ${s.breed} puppy ${s.whenText}, the kids named him ${s.name}.`,
    reply: (s) => `${s.name} is such a cute name, send me pictures!`,
    questions: (p, s) => [
      ['single-hop', `What did ${p}'s kids name the puppy?`],
      ['temporal', `When did ${p} bring the puppy home?`],
      ['paraphrase', `Did ${p} adopt a pet recently?`],
      ['open-domain', `Would ${p} be likely to visit an animal shelter?`],
    ],
  },
  {
    id: 'marathon',
    slots: { city: ['Berlin', 'Chicago', 'Valencia', 'Boston'], time: ['four hours', 'just under four hours', 'four and a half hours'] },
    ask: () => `How did the race go? You trained for months.`,
    say: (s) => `I finished the ${s.city} marathon ${s.whenText}! ${s.time}, my legs are still aching from all that running.`,
    reply: () => `That's huge, congratulations!`,
    questions: (p, s) => [
      ['single-hop', `Which marathon did ${p} run?`],
      ['temporal', `When did ${p} finish the marathon?`],
      ['paraphrase', `How long did ${p} need to complete the 42 km race?`],
      ['open-domain', `Is ${p} into sports?`],
    ],
  },
  {
    id: 'job',
    slots: { company: ['a solar energy startup', 'the city hospital', 'a game studio', 'a logistics firm'], role: ['project manager', 'data analyst', 'UX designer', 'nurse'] },
    ask: () => `Any news on the job front?`,
    say: (s) => `I signed the offer ${s.whenText}: I'm starting as a ${s.role} at ${s.company}.`,
    reply: () => `You deserve it, that's wonderful.`,
    questions: (p, s) => [
      ['single-hop', `What role is ${p} starting?`],
      ['temporal', `When did ${p} sign the job offer?`],
      ['paraphrase', `Where is ${p} going to work now?`],
      ['open-domain', `Did ${p} change careers this year?`],
    ],
  },
  {
    id: 'concert',
    slots: { band: ['Coldplay', 'a jazz quartet', 'the philharmonic', 'Arctic Monkeys'], with: ['my kids', 'my sister', 'my neighbours', 'my dad'] },
    ask: (o, s) => `Did you go to the ${s.band} concert in the end?`,
    say: (s) => `Yes, ${s.whenText}, with ${s.with}. We sang the whole night.`,
    reply: () => `Jealous! I couldn't get tickets.`,
    questions: (p, s) => [
      ['single-hop', `Who did ${p} go to the ${s.band} concert with?`],
      ['temporal', `When did ${p} see ${s.band}?`],
      ['open-domain', `What kind of music does ${p} enjoy?`],
    ],
  },
  {
    id: 'move',
    slots: { city: ['Lisbon', 'Toronto', 'Melbourne', 'Edinburgh'], home: ['a flat with a balcony', 'a small house with a garden', 'a loft near the river'] },
    ask: () => `Are you still planning to relocate?`,
    say: (s) => `The movers came ${s.whenText}. We live in ${s.city} now, in ${s.home}.`,
    reply: () => `New city, new adventures!`,
    questions: (p, s) => [
      ['single-hop', `Which city does ${p} live in now?`],
      ['temporal', `When did the movers come for ${p}?`],
      ['paraphrase', `Where did ${p} relocate to?`],
      ['open-domain', `Does ${p} have outdoor space at home?`],
    ],
  },
  {
    id: 'car',
    slots: { car: ['an electric hatchback', 'a used Volvo estate', 'a red convertible', 'a hybrid minivan'] },
    ask: () => `Did you finally replace your old car?`,
    say: (s) => `I bought ${s.car} ${s.whenText}. It was a big purchase but the old one kept breaking down.`,
    reply: () => `Enjoy the new ride!`,
    questions: (p, s) => [
      ['single-hop', `What car did ${p} buy?`],
      ['temporal', `When did ${p} purchase the new vehicle?`],
      ['paraphrase', `What does ${p} drive now?`],
    ],
  },
  {
    id: 'allergy',
    slots: { food: ['peanuts', 'shellfish', 'gluten', 'dairy'] },
    ask: () => `Is there anything you can't eat? I'm planning the dinner menu.`,
    say: (s) => `I'm allergic to ${s.food}, so please leave it out of everything.`,
    reply: () => `Noted, I'll cook around it.`,
    questions: (p, s) => [
      ['single-hop', `What is ${p} allergic to?`],
      ['paraphrase', `Which foods must ${p} avoid?`],
      ['open-domain', `What should I keep in mind when cooking for ${p}?`],
    ],
  },
  {
    id: 'instrument',
    slots: { instrument: ['cello', 'ukulele', 'piano', 'drums'] },
    ask: () => `What do you do to unwind in the evenings?`,
    say: (s) => `I've been practising the ${s.instrument} every night since ${s.sinceText}, my teacher says I'm improving.`,
    reply: () => `Play me something next time!`,
    questions: (p, s) => [
      ['single-hop', `Which instrument is ${p} practising?`],
      ['paraphrase', `Is ${p} taking music lessons?`],
      ['open-domain', `What does ${p} do to unwind in the evenings?`],
    ],
  },
  {
    id: 'trip',
    slots: { place: ['Iceland', 'Kyoto', 'the Scottish Highlands', 'Patagonia'], what: ['the northern lights', 'the temples', 'the lochs', 'the glaciers'] },
    ask: () => `How was your holiday?`,
    say: (s) => `Amazing, we got back from ${s.place} ${s.whenText}. Seeing ${s.what} was unforgettable.`,
    reply: () => `I need to go there someday.`,
    questions: (p, s) => [
      ['single-hop', `Where did ${p} travel on holiday?`],
      ['temporal', `When did ${p} get back from ${s.place}?`],
      ['paraphrase', `Which country did ${p} visit on vacation?`],
      ['open-domain', `Does ${p} like nature and travelling?`],
    ],
  },
  {
    id: 'injury',
    slots: { part: ['ankle', 'wrist', 'knee', 'shoulder'], how: ['slipped on the stairs', 'fell off my bike', 'tripped during football'] },
    ask: () => `Why were you limping the other day?`,
    say: (s) => `I ${s.how} ${s.whenText} and sprained my ${s.part}. The doctor said two weeks of rest.`,
    reply: () => `Ouch, get well soon.`,
    questions: (p, s) => [
      ['single-hop', `How did ${p} sprain the ${s.part}?`],
      ['temporal', `When did ${p} get injured?`],
      ['paraphrase', `Why was ${p} limping?`],
    ],
  },
  {
    id: 'baby',
    slots: { name: ['Noah', 'Mila', 'Leo', 'Ada'], who: ['my sister', 'my brother', 'my best friend'] },
    ask: () => `Any family news?`,
    say: (s) => `${s.who} had a baby ${s.whenText}, little ${s.name}! I'm an aunt-uncle-godparent all at once.`,
    reply: () => `Congratulations to the whole family!`,
    questions: (p, s) => [
      ['single-hop', `What is the name of the new baby in ${p}'s family?`],
      ['temporal', `When was the baby born in ${p}'s family?`],
      ['paraphrase', `Who recently became a parent in ${p}'s family?`],
    ],
  },
  {
    id: 'book',
    slots: { book: ['a novel about a lighthouse keeper', 'a biography of Marie Curie', 'a thriller set in Oslo', 'a book on stoic philosophy'] },
    ask: () => `Read anything good lately?`,
    say: (s) => `I couldn't put down ${s.book}, I stayed up until 2 am ${s.whenText} to finish it.`,
    reply: () => `Lend it to me when you can.`,
    questions: (p, s) => [
      ['single-hop', `What book kept ${p} up until 2 am?`],
      ['paraphrase', `Which story did ${p} finish in one night?`],
      ['open-domain', `Does ${p} like reading?`],
    ],
  },
  {
    id: 'garden',
    slots: { crop: ['tomatoes', 'strawberries', 'courgettes', 'herbs'] },
    ask: () => `What have you been up to this weekend?`,
    say: (s) => `Mostly digging in the garden. The ${s.crop} finally came up, I picked the first ones ${s.whenText}.`,
    reply: () => `Homegrown is the best.`,
    questions: (p, s) => [
      ['single-hop', `What came up in ${p}'s garden?`],
      ['paraphrase', `Which vegetables or fruit did ${p} harvest?`],
      ['open-domain', `What does ${p} do on weekends?`],
    ],
  },
  {
    id: 'course',
    slots: { subject: ['Spanish', 'pottery', 'photography', 'coding'] },
    ask: () => `Weren't you going to sign up for a class?`,
    say: (s) => `I did, evening ${s.subject} lessons twice a week. The first one was ${s.whenText} and I loved it.`,
    reply: () => `Good for you for learning something new.`,
    questions: (p, s) => [
      ['single-hop', `What lessons is ${p} taking?`],
      ['temporal', `When was ${p}'s first lesson?`],
      ['paraphrase', `What is ${p} studying in the evenings?`],
    ],
  },
  {
    id: 'volunteer',
    slots: { where: ['the food bank', 'an animal shelter', 'the children\'s hospital', 'a literacy charity'] },
    ask: () => `You seem busy on Saturdays now.`,
    say: (s) => `I help out at ${s.where} every Saturday morning; I joined ${s.whenText}.`,
    reply: () => `That's really kind of you.`,
    questions: (p, s) => [
      ['single-hop', `Where does ${p} help out on Saturdays?`],
      ['paraphrase', `What charity work does ${p} do?`],
      ['open-domain', `Is ${p} involved in the community?`],
    ],
  },
  {
    id: 'cooking',
    slots: { dish: ['a lasagne from scratch', 'ramen with homemade broth', 'a lemon tart', 'a Thai green curry'] },
    ask: () => `What did you have for dinner?`,
    say: (s) => `I made ${s.dish} ${s.whenText}, it took all afternoon but the children ate every bit.`,
    reply: () => `Save me a portion next time.`,
    questions: (p, s) => [
      ['single-hop', `What did ${p} make for dinner?`],
      ['paraphrase', `What meal did ${p} prepare for the kids?`],
      ['open-domain', `Does ${p} like to cook?`],
    ],
  },
];

/** Small talk: built from pieces so that no two turns are the same text. */
const SMALL = [
  (o) => `How has your week been, ${o}?`,
  () => `Pretty good, work has been busy but nothing special.`,
  () => `The weather has been so grey lately.`,
  () => `I know, I can't wait for some sun.`,
  () => `Did you watch the match on Sunday?`,
  () => `Only the second half, what a finish.`,
  () => `I'm so tired today, I barely slept.`,
  () => `Coffee helps, at least for me.`,
  () => `We should meet up soon.`,
  () => `Definitely, let's find a day.`,
  () => `Haha, that's so true.`,
  () => `I've been thinking about what you said last time.`,
  () => `Really? I hope it helped.`,
  () => `Traffic this morning was terrible.`,
  () => `Take the train, it's so much calmer.`,
  () => `My phone keeps dying, I need a new battery.`,
  () => `Have you tried turning off the background apps?`,
  () => `I'm making plans for the summer.`,
  () => `Anything exciting in mind?`,
  () => `Not sure yet, maybe something relaxing.`,
];
const TAILS = ['', ' Anyway.', ' Honestly.', ' Ha.', ' You know how it is.', ' Right?', ' Crazy.', ' Oh well.', ' Same as always.', ' Fingers crossed.',
  ' Seriously.', ' Lol.', ' Classic.', ' Typical.', ' Whatever.', ' As usual.', ' Ugh.', ' Oh boy.', ' Go figure.', ' Such is life.'];

const RELATIVE = ['yesterday', 'last weekend', 'last week', 'two days ago', 'on Friday', 'this morning'];

function conversation(n, [a, b]) {
  rand = prng(1000 + n);
  const agentId = `conv-${n + 1}`;
  const facts = [];
  const queries = [];
  const said = new Set();
  const AGAIN = [' Again!', ' Really.', ' Truly.', ' Yes.', ' Indeed.'];
  const turn = (speaker, text) => {
    const key = `${agentId}-t${String(facts.length + 1).padStart(3, '0')}`;
    // A line said twice would be one fact (memoryd keeps a text once): say it a little differently.
    let content = `${speaker}: ${text}`;
    for (let i = 0; said.has(content.toLowerCase()); i++) content += AGAIN[i % AGAIN.length];
    said.add(content.toLowerCase());
    // Stored as a conversation logger would: with the turn before as its context (ADR 0033).
    const before = facts[facts.length - 1];
    facts.push({ key, agentId, content, ...(before === undefined ? {} : { context: before.content }) });
    return key;
  };
  const q = (kind, query, relevant) => queries.push({ id: `${agentId}-q${String(queries.length + 1).padStart(3, '0')}`, kind, agentId, query, relevant });

  // Each speaker lives 11 of the events, in a random order, spread over 12 sessions.
  const lives = [a, b].flatMap((p) => shuffle(EVENTS).slice(0, 11).map((e) => ({ p, o: p === a ? b : a, e })));
  const plan = shuffle(lives);
  const SESSIONS = 12;
  let date = new Date(Date.UTC(2023, 2 + n, 3 + n));
  const told = []; // { p, e, key, session }
  let small = 0;
  const smallTalk = (count) => {
    for (let i = 0; i < count; i++) {
      const speaker = i % 2 === 0 ? a : b;
      const other = speaker === a ? b : a;
      turn(speaker, SMALL[small % SMALL.length](other) + TAILS[Math.floor(small / SMALL.length) % TAILS.length]);
      small++;
    }
  };
  for (let s = 0; s < SESSIONS; s++) {
    date = new Date(date.getTime() + (5 + Math.floor(rand() * 20)) * 86_400_000);
    const { day, text } = dateOf(date);
    turn(a, `Hi ${b}! Happy ${day}, it's ${text} already, can you believe it?`);
    turn(b, `Hey ${a}! ${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()} already, time flies. So good to hear from you.`);
    const events = plan.slice(Math.floor((s * plan.length) / SESSIONS), Math.floor(((s + 1) * plan.length) / SESSIONS));
    for (const { p, o, e } of events) {
      smallTalk(6 + Math.floor(rand() * 8));
      const slots = {};
      for (const [k, vs] of Object.entries(e.slots)) slots[k] = pick(vs);
      slots.whenText = pick(RELATIVE);
      slots.sinceText = `${MONTHS[(date.getUTCMonth() + 11) % 12]}`;
      turn(o, e.ask(o, slots));
      const sayKey = turn(p, e.say(slots));
      turn(o, e.reply(slots));
      told.push({ p, e, key: sayKey, session: s });
      for (const [kind, query] of e.questions(p, slots)) q(kind, query, [sayKey]);
    }
    smallTalk(4 + Math.floor(rand() * 6));
    turn(b, `I have to run, talk soon ${a}! Enjoy your ${day}, the ${date.getUTCDate()}th.`);
    turn(a, `Bye ${b}, take care! Talk after ${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}.`);
  }
  // Multi-hop: two events of one person, told in different sessions.
  const byPerson = new Map();
  for (const t of told) {
    if (!byPerson.has(t.p)) byPerson.set(t.p, []);
    byPerson.get(t.p).push(t);
  }
  const HOP = {
    pet: 'got a new puppy',
    marathon: 'ran a marathon',
    job: 'started a new job',
    move: 'moved to a new city',
    car: 'bought a car',
    trip: 'went on a trip',
    injury: 'got injured',
    course: 'signed up for a class',
    volunteer: 'volunteers on Saturdays',
    instrument: 'practises an instrument',
  };
  const ASK = {
    pet: 'what is their dog called',
    marathon: 'which marathon did they run',
    job: 'what is their new job',
    move: 'where do they live now',
    car: 'what car do they drive',
    trip: 'where did they travel',
    injury: 'how did they get hurt',
    course: 'what class are they taking',
    volunteer: 'where do they volunteer',
    instrument: 'which instrument do they play',
  };
  for (const [, list] of byPerson) {
    const usable = list.filter((t) => HOP[t.e.id] !== undefined);
    for (let i = 0; i + 1 < usable.length && i < 8; i += 2) {
      const [x, y] = [usable[i], usable[i + 1]];
      if (x.session === y.session) continue;
      q('multi-hop', `The friend who ${HOP[x.e.id]}: ${ASK[y.e.id]}?`, [x.key, y.key]);
    }
  }
  return { agentId, description: `${a} and ${b}, ${SESSIONS} sessions`, facts, queries };
}

const convs = PAIRS.map((pair, n) => conversation(n, pair));
const set = {
  version: 1,
  description:
    'Conversational relevance set (issue 31): six long conversations between two friends, stored turn by turn as "Speaker: text" facts in the order they were said, with questions labelled with their evidence turns. Generated by make-conversations.mjs (seeded, deterministic).',
  agents: Object.fromEntries(convs.map((c) => [c.agentId, c.description])),
  facts: convs.flatMap((c) => c.facts),
  queries: convs.flatMap((c) => c.queries),
};
writeFileSync(OUT, `${JSON.stringify(set, null, 1)}\n`);
const kinds = {};
for (const x of set.queries) kinds[x.kind] = (kinds[x.kind] ?? 0) + 1;
console.log(`${OUT}: ${set.facts.length} turns in ${convs.length} conversations (${convs.map((c) => c.facts.length).join(', ')}), ${set.queries.length} questions ${JSON.stringify(kinds)}`);
