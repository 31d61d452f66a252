import { json } from '@codemirror/lang-json';
import { yaml } from '@codemirror/lang-yaml';
import { StreamLanguage } from '@codemirror/language';
import { properties } from '@codemirror/legacy-modes/mode/properties';
import { oneDark } from '@codemirror/theme-one-dark';
import { Box, FormHelperText, FormLabel, useTheme } from '@mui/material';
import CodeMirror from '@uiw/react-codemirror';
import { useMemo } from 'react';
import type { CodeEditorProps } from './code-editor';

/** The editor itself (CodeMirror), loaded by CodeEditor on first use. */
export function CodeEditorView({
  label,
  value,
  onChange,
  language,
  error,
  helperText,
  minHeight = 160,
  readOnly = false,
}: CodeEditorProps) {
  const theme = useTheme();
  const extensions = useMemo(() => [language === 'yaml' ? yaml() : language === 'json' ? json() : StreamLanguage.define(properties)], [language]);
  return (
    <Box>
      <FormLabel error={error} sx={{ fontSize: 13 }}>
        {label}
      </FormLabel>
      <Box sx={{ mt: 0.5, border: 1, borderColor: error ? 'error.main' : 'divider', borderRadius: 1, overflow: 'hidden', fontSize: 13 }} data-testid={`code-${label}`}>
        <CodeMirror
          value={value}
          onChange={onChange}
          editable={!readOnly}
          readOnly={readOnly}
          extensions={extensions}
          theme={theme.palette.mode === 'dark' ? oneDark : 'light'}
          minHeight={`${minHeight}px`}
          basicSetup={{ foldGutter: false, highlightActiveLine: false, indentOnInput: true, tabSize: 2 }}
          aria-label={label}
        />
      </Box>
      {helperText ? <FormHelperText error={error}>{helperText}</FormHelperText> : null}
    </Box>
  );
}
