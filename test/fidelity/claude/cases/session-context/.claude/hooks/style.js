// Corpus hook: a SessionStart context loader in the pattern of output-style plugins, which
// print hookSpecificOutput.additionalContext for the model (see ../../../../SOURCES.md).
console.log(
  JSON.stringify({
    hookSpecificOutput: {
      hookEventName: 'SessionStart',
      additionalContext: 'Explain the reasoning behind each change in a short Insight block.',
    },
  }),
)
