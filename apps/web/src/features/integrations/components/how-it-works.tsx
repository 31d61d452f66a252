import InfoIcon from '@mui/icons-material/InfoOutlined';
import { Alert, AlertTitle, Box } from '@mui/material';
import type { IntegrationAuthMethod } from '@gantry/contracts';
import { useTranslation } from 'react-i18next';

/** How a webhook request becomes a task: the sender is checked, every matcher must hold, extracted values become variables. */
export function HowItWorks({
  authMethod,
  templateName,
  workflow = false,
}: {
  authMethod: IntegrationAuthMethod;
  templateName: string;
  workflow?: boolean;
}) {
  const { t } = useTranslation();
  return (
    <Alert severity="info" variant="outlined" icon={<InfoIcon />} data-testid="integration-how">
      <AlertTitle>{t('integrations.how.title')}</AlertTitle>
      <Box component="ol" sx={{ m: 0, pl: 2.5, '& li + li': { mt: 0.5 } }}>
        <li>{t('integrations.how.post')}</li>
        <li>
          {t(authMethod === 'none' ? 'integrations.how.authNone' : 'integrations.how.auth', {
            method: t(`integrations.authMethods.${authMethod}`),
          })}
        </li>
        <li>{t('integrations.how.matchers')}</li>
        {/* A workflow's run takes no extracted values (yet): it just starts. */}
        <li>
          {workflow
            ? t('integrations.how.workflowRun', { workflow: templateName })
            : t('integrations.how.values', { template: templateName })}
        </li>
      </Box>
    </Alert>
  );
}
