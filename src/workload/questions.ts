/**
 * @module workload/questions
 * A fixed set of short questions with exact answers (arithmetic, calendar dates, unit
 * conversions) that any instruction-tuned model answers, and the normaliser that compares an
 * answer with the expected one. The upgrade gate's quality check (docs/gate.md, check 10.2)
 * sends them to the old and the new version; the simulator answers them from this set, right
 * or wrong at the rate `--answer-accuracy` sets, so the check can be tested.
 *
 * It lives here, at the workload stage, because both the simulator (tier 5) and the gate
 * (tier 10) read it: it is a prompt set with known answers. Every answer was checked by hand;
 * dates follow the proleptic Gregorian calendar, conversions use exact SI definitions
 * (1 in = 2.54 cm, 1 lb = 0.45359237 kg, 1 mi = 1.609344 km) rounded as the question says.
 */

/** One question and its exact answer. */
export interface Question {
  /** Stable id, `kind-n`; never reused. */
  id: string;
  kind: 'arithmetic' | 'date' | 'units';
  /** The question as asked (the user message is {@link questionPrompt} of it). */
  question: string;
  /** The exact answer, in its normal form (see {@link normalizeAnswer}). */
  answer: string;
}

const q = (id: string, kind: Question['kind'], question: string, answer: string): Question => ({
  id,
  kind,
  question,
  answer,
});

/** The question set (at least 50; ids stable). */
export const QUESTIONS: readonly Question[] = [
  q('arith-1', 'arithmetic', 'What is 17 + 25?', '42'),
  q('arith-2', 'arithmetic', 'What is 144 / 12?', '12'),
  q('arith-3', 'arithmetic', 'What is 23 * 19?', '437'),
  q('arith-4', 'arithmetic', 'What is 1000 - 387?', '613'),
  q('arith-5', 'arithmetic', 'What is 15 squared?', '225'),
  q('arith-6', 'arithmetic', 'What is the square root of 169?', '13'),
  q('arith-7', 'arithmetic', 'What is 2 to the power of 10?', '1024'),
  q('arith-8', 'arithmetic', 'What is 7 * 8 + 6?', '62'),
  q('arith-9', 'arithmetic', 'What is 25% of 240?', '60'),
  q('arith-10', 'arithmetic', 'What is 999 + 1?', '1000'),
  q('arith-11', 'arithmetic', 'What is 81 / 9 - 4?', '5'),
  q('arith-12', 'arithmetic', 'What is 12 * 12 * 2?', '288'),
  q('arith-13', 'arithmetic', 'What is 3.5 + 4.25?', '7.75'),
  q('arith-14', 'arithmetic', 'What is 100 - 7 * 9?', '37'),
  q('arith-15', 'arithmetic', 'What is the remainder of 47 divided by 5?', '2'),
  q('arith-16', 'arithmetic', 'What is 6 factorial?', '720'),
  q('arith-17', 'arithmetic', 'What is 0.5 * 0.5?', '0.25'),
  q('arith-18', 'arithmetic', 'What is 365 * 3?', '1095'),
  q('arith-19', 'arithmetic', 'What is 2 + 3 * 4?', '14'),
  q('arith-20', 'arithmetic', 'What is (2 + 3) * 4?', '20'),
  q('date-1', 'date', 'How many days are in February 2024?', '29'),
  q('date-2', 'date', 'How many days are in February 2023?', '28'),
  q('date-3', 'date', 'What day of the week was 1 January 2000?', 'saturday'),
  q('date-4', 'date', 'What day of the week was 4 July 1776?', 'thursday'),
  q('date-5', 'date', 'What is the date 10 days after 25 December 2023, in YYYY-MM-DD?', '2024-01-04'),
  q('date-6', 'date', 'What is the date 1 day before 1 March 2024, in YYYY-MM-DD?', '2024-02-29'),
  q('date-7', 'date', 'How many days are there in a leap year?', '366'),
  q('date-8', 'date', 'How many days are in April?', '30'),
  q('date-9', 'date', 'Is 1900 a leap year? Answer yes or no.', 'no'),
  q('date-10', 'date', 'Is 2000 a leap year? Answer yes or no.', 'yes'),
  q('date-11', 'date', 'What day of the week was 20 July 1969?', 'sunday'),
  q('date-12', 'date', 'How many days are there from 1 January 2023 to 1 January 2024?', '365'),
  q('date-13', 'date', 'What is the date 30 days after 1 January 2025, in YYYY-MM-DD?', '2025-01-31'),
  q('date-14', 'date', 'How many hours are in a week?', '168'),
  q('date-15', 'date', 'How many minutes are in a day?', '1440'),
  q('date-16', 'date', 'What is the 100th day of the year 2023, in YYYY-MM-DD?', '2023-04-10'),
  q('units-1', 'units', 'How many centimetres are in 2 metres?', '200'),
  q('units-2', 'units', 'How many grams are in 3.5 kilograms?', '3500'),
  q('units-3', 'units', 'How many millilitres are in 1.5 litres?', '1500'),
  q('units-4', 'units', 'How many seconds are in one hour?', '3600'),
  q('units-5', 'units', 'What is 100 degrees Celsius in Fahrenheit?', '212'),
  q('units-6', 'units', 'What is 32 degrees Fahrenheit in Celsius?', '0'),
  q('units-7', 'units', 'How many centimetres are in 10 inches?', '25.4'),
  q('units-8', 'units', 'How many inches are in 3 feet?', '36'),
  q('units-9', 'units', 'How many metres are in 5 kilometres?', '5000'),
  q('units-10', 'units', 'How many kilometres are in 10 miles, rounded to one decimal place?', '16.1'),
  q('units-11', 'units', 'How many kilograms are in 10 pounds, rounded to two decimal places?', '4.54'),
  q('units-12', 'units', 'How many bytes are in one kibibyte?', '1024'),
  q('units-13', 'units', 'How many megabytes are in 2 gigabytes (decimal units)?', '2000'),
  q('units-14', 'units', 'What is -40 degrees Celsius in Fahrenheit?', '-40'),
  q('units-15', 'units', 'How many millimetres are in 7.5 centimetres?', '75'),
  q('units-16', 'units', 'How many ounces are in one pound?', '16'),
  q('units-17', 'units', 'What is 0 degrees Celsius in kelvin, rounded to two decimal places?', '273.15'),
  q('units-18', 'units', 'How many square metres are in one hectare?', '10000'),
];

/** The instruction that goes before each question, so a model answers with the answer alone. */
export const QUESTION_INSTRUCTION = 'Answer with only the final answer, no words or units.';

/** The user message sent for a question. */
export function questionPrompt(question: Question): string {
  return `${QUESTION_INSTRUCTION}\n${question.question}`;
}

/** The question a user message asks, when it is one of {@link QUESTIONS} (as {@link questionPrompt} wrote it). */
export function questionOf(prompt: string): Question | undefined {
  return BY_PROMPT.get(prompt.trim());
}

const BY_PROMPT: ReadonlyMap<string, Question> = new Map(QUESTIONS.map((x) => [questionPrompt(x), x]));

/**
 * An answer's normal form, for comparison: the last non-empty line (a model that explains
 * first ends with the answer), lower-cased, without Markdown emphasis, quotes, a leading
 * "answer:", a trailing full stop, or thousands separators; a number is written in its
 * shortest form (`12.50` → `12.5`, `+7` → `7`).
 * @example normalizeAnswer('**1,024.**') === '1024'
 */
export function normalizeAnswer(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter(Boolean);
  let s = (lines.at(-1) ?? '').toLowerCase();
  s = s.replace(/[*_`"“”‘’]/g, '').trim();
  s = s.replace(/^(the )?(final )?answer( is)?\s*[:：]?\s*/, '');
  s = s.replace(/[.。!]+$/, '').trim();
  if (/^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/.test(s)) s = s.replace(/,/g, '');
  if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(s)) s = String(Number(s));
  return s.replace(/\s+/g, ' ');
}

/** Whether `text` answers `question` (after {@link normalizeAnswer}). */
export function isCorrect(question: Question, text: string | null): boolean {
  return text !== null && normalizeAnswer(text) === normalizeAnswer(question.answer);
}

/**
 * A wrong answer to `question`, deterministic: a number moved by `1 + k` (the kind of slip a
 * degraded model makes), a date a day later, a word replaced.
 */
export function wrongAnswer(question: Question, k: number): string {
  const a = question.answer;
  const bump = 1 + (k % 3);
  if (/^-?\d+$/.test(a)) return String(Number(a) + bump);
  if (/^-?\d+\.\d+$/.test(a)) return String(Math.round((Number(a) + bump / 10) * 1000) / 1000);
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(a);
  if (date)
    return `${date[1]}-${date[2]}-${String(((Number(date[3]) + bump - 1) % 28) + 1).padStart(2, '0')}`;
  if (a === 'yes') return 'no';
  if (a === 'no') return 'yes';
  return a === 'monday' ? 'tuesday' : 'monday';
}
