import { TWO_FACTOR_POLICIES, type TwoFactorPolicy } from '@gantry/contracts';
import {
  Alert,
  Box,
  Button,
  Card,
  CardActions,
  CardContent,
  FormControl,
  FormControlLabel,
  FormHelperText,
  FormLabel,
  Radio,
  RadioGroup,
  Skeleton,
  Typography,
} from '@mui/material';
import { useState, type FormEvent } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { FormError } from '../../components/form-error';
import { PageHeader } from '../../components/page-header';
import { useSnackbar } from '../../components/snackbar';
import { errorText } from '../../lib/error-text';
import { useCurrentUser } from '../../lib/session';
import { useSaveTwoFactorPolicy, useTwoFactorSettings } from './api/security-api';

const code = <Box component="code" sx={{ fontFamily: 'monospace' }} />;

/** /security (admin): who must sign in with two factors (off, admins, everyone). */
export function SecurityPage() {
  const { t } = useTranslation();
  const me = useCurrentUser();
  const settings = useTwoFactorSettings(me.admin);
  const save = useSaveTwoFactorPolicy();
  const snackbar = useSnackbar();
  const [choice, setChoice] = useState<TwoFactorPolicy | null>(null);
  if (!me.admin) return null;

  const current = settings.data;
  const value = choice ?? current?.required ?? 'off';
  const locked = !current || current.fixed || (!current.totp_enabled && value === 'off');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const saved = await save.mutateAsync(value).catch(() => null);
    if (saved) {
      setChoice(null);
      snackbar.success(t('security.saved'));
    }
  };

  return (
    <Box>
      <PageHeader title={t('security.title')} />
      {settings.isError ? (
        <Alert severity="error" sx={{ mb: 2 }}>
          {errorText(settings.error)}
        </Alert>
      ) : null}
      <Card variant="outlined" sx={{ maxWidth: 720 }} component="form" noValidate onSubmit={(e) => void submit(e)}>
        <CardContent>
          <FormControl disabled={locked} fullWidth>
            <FormLabel id="two-factor-policy-label" sx={{ typography: 'h6', color: 'text.primary', mb: 1 }}>
              {t('security.twoFactorTitle')}
            </FormLabel>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
              {t('security.twoFactorIntro')}
            </Typography>
            {current ? (
              <RadioGroup
                aria-labelledby="two-factor-policy-label"
                value={value}
                onChange={(e) => {
                  setChoice(e.target.value as TwoFactorPolicy);
                  if (save.error) save.reset();
                }}
              >
                {TWO_FACTOR_POLICIES.map((p) => (
                  <FormControlLabel key={p} value={p} control={<Radio />} label={t(`security.policy.${p}`)} />
                ))}
              </RadioGroup>
            ) : (
              <Skeleton variant="rectangular" height={120} aria-hidden="true" />
            )}
            {value !== 'off' && !current?.fixed ? <FormHelperText>{t('security.ownTooHint')}</FormHelperText> : null}
          </FormControl>
          {current?.fixed ? (
            <Alert severity="info" sx={{ mt: 2 }}>
              <Trans i18nKey="security.fixed" components={{ code }} />
            </Alert>
          ) : null}
          {current && !current.totp_enabled ? (
            <Alert severity="warning" sx={{ mt: 2 }}>
              <Trans i18nKey="security.totpOff" components={{ code }} />
            </Alert>
          ) : null}
          <Box sx={{ mt: 2 }}>
            <FormError error={save.error} />
          </Box>
        </CardContent>
        {current && !current.fixed ? (
          <CardActions sx={{ px: 2, pb: 2 }}>
            <Button type="submit" variant="contained" disabled={locked || save.isPending || value === current.required}>
              {t('common.save')}
            </Button>
          </CardActions>
        ) : null}
      </Card>
    </Box>
  );
}
