/**
 * What a fact's text is about, for the scope rules every extractor's candidates pass through:
 * user scope is only for the person (who they are, how they like to be answered), never for a
 * codebase, tool, project or workflow, however it is phrased.
 */

export const TECHNICAL =
  /\b(?:code|coding|codebase|code ?base|tests?|testing|unit tests?|commits?|branch(?:es)?|merges?|pull requests?|PRs?|lint(?:er|ing)?|builds?|deploy(?:s|ments?)?|releases?|functions?|methods?|class(?:es)?|variables?|files?|folders?|director(?:y|ies)|modules?|imports?|exports?|types?|typescript|javascript|python|rust|golang|java|kotlin|swift|sql|database|db|schemas?|migrations?|apis?|endpoints?|servers?|clients?|components?|packages?|dependenc(?:y|ies)|npm|pnpm|yarn|bun|docker|kubernetes|ci|repo(?:sitory)?|librar(?:y|ies)|frameworks?|semicolons?|tabs|spaces|indentation|naming|camel ?case|snake_case|kebab-case|logging|logs?|errors?|exceptions?|async|await|promises?|git|main|master|staging|production|prod|config(?:uration)?|env(?:ironment)?|quer(?:y|ies)|tables?|columns?|indexes|css|html|react|vue|svelte|node(?:\.js)?|scripts?|formatting|prettier|eslint|docstrings?|comments?|makefile|cargo|pip|poetry|webpack|vite|json|yaml|tsconfig|linux|windows|macos|postgres(?:ql)?|sqlite|mysql|redis|http|rest|graphql|grpc|tailwind|monorepo|changelog|semver|versions?|project|workspace|pipeline|staging|hooks?|props|state management|stores?|routes?|routers?|handlers?|services?|containers?|images?|scripts?|ide|editor|vim|emacs|vs ?code|terminal|shell|bash|zsh|tooling|toolchain|compiler|bundler|runtime|sdk|cli|wiki|jira|tickets?|issues?|sprints?|standups?|backlog|workflow|review(?:s|ers?)?|helpers?|utils?|underscores?)\b/i;

/** A file name, a path or a code identifier: only a codebase has those. */
export const CODE_TOKEN =
  /`[^`]+`|\b[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|rs|go|java|kt|rb|php|cs|cpp|c|h|json|ya?ml|toml|md|sql|sh|css|html)\b|(?:^|\s)[.~]?\/[\w./-]+|\b[a-z]+[A-Z]\w*\(|\b\w+_\w+\b/;

/**
 * Unmistakable software work: "I fixed the bug in the parser", "I'm debugging the auth flow". Words
 * that also name everyday things (tests, builds, scripts, packages, servers) are left out.
 */
export const CODE_TASK =
  /\b(?:bugs?|bugfix|hotfix|commits?|committed|branch(?:es)?|merged?|rebased?|PRs?|pull requests?|deploy(?:s|ed|ing|ment)?|rollback|rolled back|revert(?:ed)?|refactor(?:ed|ing)?|migrations?|endpoints?|repo(?:sitory)?|codebase|CI|pipelines?|stack ?traces?|unit tests?|test suite|flaky|lint(?:er|ing)?|parser|config(?:uration)?|staging|prod|APIs?|schemas?|quer(?:y|ies)|dependenc(?:y|ies)|compiler|debug(?:ging|ged)?|auth|database|docker|kubernetes|typescript|javascript|regex|frontend|backend|localhost|npm|git|helpers?|variables?|methods?)\b/i;

/** The codebase or the team's shared work: "in this codebase", "our repo", "we ...". */
export const SHARED_WORK =
  /\b(?:this|our|the) (?:codebase|code ?base|repo(?:sitory)?|project|app|service|team|monorepo|workspace|package|library)\b|\bwe(?:'ll|'re|'ve)?\b|\bour\b|\bus\b/i;

/** How the person wants to be answered or addressed: the one technical-sounding topic that is theirs. */
export const ANSWER_STYLE =
  /\b(?:answers?|answering|replies|reply|replying|responses?|respond|explanations?|explain(?:ing)?|summar(?:y|ies|ise|ize)|tone|address(?:ed)? me|call(?:ed)? me|talk(?:ing)? to me|write to me|greet me|speak to me|messages to me|examples?|bullet points?|jargon)\b/i;

/** A working role ("User is a backend engineer, mostly Python"): profile, even in technical words. */
export const WORK_ROLE =
  /\b(?:developer|engineer|programmer|designer|scientist|researcher|architect|analyst|administrator|admin|maintainer|sre|devops|tester|cto)s?\b|\b(?:lead|leads|manage|manages|head|heads|run|runs) the [\w -]{1,40}(?:team|group|department|squad)\b/i;

/** Technical or shared-work content that must never be user-global. */
export function isWorkContent(text: string): boolean {
  if (ANSWER_STYLE.test(text) && !SHARED_WORK.test(text) && !CODE_TOKEN.test(text)) return false;
  return TECHNICAL.test(text) || CODE_TOKEN.test(text) || SHARED_WORK.test(text);
}

const BARE = '(?:it|this|that|these|those|they|them|he|she|him|her|one)';
const VERBISH =
  '(?:is|was|are|were|must|will|would|can|could|should|has|had|have|does|did|do|seems?|sounds?|looks?|works?|makes?|means?|really|just|all|never|always|so|gets?|got|feels?|went|goes)';
/** "It must be ...", "That is ...", "They said ...": a subject that only the moment explains. */
const PRONOUN_SUBJECT = new RegExp(`^${BARE}(?:'s|'re|'ll|'d|\\s+${VERBISH}\\b|[\\s,.!]*$)`, 'i');
/** "User likes them.", "User loves it so much.": the object is only a pointer. */
const PRONOUN_OBJECT = new RegExp(
  `^user\\s+\\w+\\s+${BARE}(?:\\s+(?:so much|a lot|too|very much|again|all))?[.!]?$`,
  'i',
);

/**
 * The text's meaning hangs on a pronoun or a pointer to the moment ("User likes them.", "It must
 * be really putting ... to the test", "That works"): it cannot be read out of context.
 */
export function hangsOnPronoun(text: string): boolean {
  const t = text.trim();
  return PRONOUN_SUBJECT.test(t) || PRONOUN_OBJECT.test(t);
}
