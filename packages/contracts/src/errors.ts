import { z } from 'zod';

/**
 * Every failed API call answers this body: `error` is the English text; `code` the refusal's
 * stable code (ErrorCodes: a client, the console above all, tells refusals apart by it and words
 * them in its own language); `field` the request field it is about (a dotted path), when there
 * is one; further members are the code's parameters (see ErrorCodes). `code` is optional here
 * only for answers that do not come from Gantry (a proxy's).
 */
export const errorBodySchema = z
  .object({
    error: z.string(),
    code: z.string().optional(),
    field: z.string().optional(),
  })
  .catchall(z.unknown());
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Error texts the specification fixes. */
export const Messages = {
  incorrectLogin: 'Incorrect login or password',
  incorrectCurrentPassword: 'Current password is incorrect',
  currentPasswordRequired: 'Current password is required',
  /** One's own password without the current one: only from a session signed in a few minutes ago. */
  recentSignInRequired: 'Sign in again to change your password',
  tooManyAttempts: 'Too many failed sign-in attempts, try again later',
  notAuthenticated: 'Not authenticated',
  /** A 401 with this error: the password was right, the second sign-in step is still to do. */
  totpRequired: 'TOTP_REQUIRED',
  incorrectVerificationCode: 'Incorrect verification code.',
  incorrectRecoveryCode: 'Incorrect recovery code.',
  totpDisabled: 'Two-factor sign-in is not enabled on this server',
  totpExists: 'Two-factor sign-in is already enabled for this user',
  totpNotFound: 'Two-factor method not found',
  totpQrOwnOnly: 'Only the user can see their own two-factor QR code',
  totpConfirmOwnOnly: 'Only the user can confirm their own two-factor method',
  recoveryDisabled: 'Recovery codes are not accepted on this server',
  /** Removing one's own two-factor method needs one of these (a stolen session alone is not enough). */
  totpProofRequired: 'Enter your current password or a current verification code',
  /** A 403 with this error: the administrator requires two-factor sign-in and the user has none yet. */
  totpEnrolmentRequired: 'Set up two-factor sign-in to continue',
  forbidden: 'Forbidden',
  notFound: 'Not found',
  projectNotFound: 'Project not found',
  userNotFound: 'User not found',
  tokenNotFound: 'Token not found',
  usernameTaken: 'Username is already taken',
  emailTaken: 'Email is already taken',
  crossSite: 'Cross-site request refused',
  cannotDeleteSelf: 'You cannot delete yourself',
  lastAdmin: 'The last administrator cannot be removed',
  databaseUnavailable: 'The database is unreachable',
  databaseFull: 'The database or its disk is full',
} as const;

/**
 * The stable codes of refusals: every error answer of the API carries one (`code` beside
 * `error`), and the console has a translation for each (`errors.<code>` in every dictionary; the
 * locale test fails on a code without one). A code names a meaning, not a text: the English
 * `error` stays as it is for API users, and what a client needs to word the refusal itself comes
 * as further members of the body (strings and numbers: `variable`, `limit`, `max`...; the
 * console interpolates them as `{{name}}`).
 *
 * Labelled fields: rules that name the field they refuse ("Project name is required", "Branch
 * must be at most 255 characters") share one code per rule (`field_required`, `too_long`...) and
 * name the field by `label_key`, a key of FieldLabels ("project_name"), never by its English
 * label, which would show English inside a translated sentence: the dictionaries word the label
 * from `fieldLabels.<key>` (`"$t(fieldLabels.{{label_key}}) is required"`). Every other message has
 * a code of its own. Contracts rules give theirs with `coded()`/`codedIssue()` (coded.ts), the
 * server's errors take theirs as a constructor argument; the error handler answers a code by
 * status (`bad_request`, `not_found`...) only for what carries none (Fastify's own refusals).
 */
export const ErrorCodes = {
  /** A variable name task input may not take (Ansible's own, or one that steers the process or its connections). */
  variableReserved: 'variable_reserved',
  /** A variable name that is not letters, digits and underscores. */
  variableNameInvalid: 'variable_name_invalid',
  /** A variable of task input that would replace one of the variable group's environment variables. */
  variableReplacesGroup: 'variable_replaces_group',
  /** A name or description with bidirectional-override or invisible characters. */
  invisibleCharacters: 'invisible_characters',
  /** A secret or a variable group larger than its limit. */
  tooLarge: 'too_large',
  /** A change to one's own account that needs the current password (e.g. enabling two-factor sign-in) came without it. */
  currentPasswordRequired: 'current_password_required',
  /** The current password given to confirm a change to one's own account is wrong. */
  currentPasswordIncorrect: 'current_password_incorrect',
  /** One's own password changed without the current one, from an API token or a session not signed in recently. */
  recentSignInRequired: 'recent_sign_in_required',
  // Answers by status (the error handler's defaults) and refusals of the request itself
  badRequest: 'bad_request',
  notAuthenticated: 'not_authenticated',
  forbidden: 'forbidden',
  notFound: 'not_found',
  methodNotAllowed: 'method_not_allowed',
  conflict: 'conflict',
  tooManyRequests: 'too_many_requests',
  internalError: 'internal_error',
  invalidValue: 'invalid_value',
  bodyNotJson: 'body_not_json',
  bodyTooLarge: 'body_too_large',
  unsupportedContentType: 'unsupported_content_type',
  routeNotFound: 'route_not_found',
  crossSite: 'cross_site',
  invalidId: 'invalid_id',
  notReady: 'not_ready',
  /** The database cannot be reached now (503, with Retry-After): the same request may be retried. */
  databaseUnavailable: 'database_unavailable',
  /** The database or its disk is full (507): writes fail until an operator makes room; reads go on. */
  databaseFull: 'database_full',
  // Schema rules; `label_key` names the field (see the approach above)
  fieldRequired: 'field_required', // label_key
  tooLong: 'too_long', // label_key, max
  controlCharacters: 'control_characters', // label_key
  mustBeString: 'must_be_string', // label_key
  mustBeTrueOrFalse: 'must_be_true_or_false', // label_key
  outOfRange: 'out_of_range', // label_key, max, min
  jsonInvalid: 'json_invalid', // label_key
  jsonObjectRequired: 'json_object_required', // label_key
  httpUrlRequired: 'http_url_required', // label_key
  dateRequired: 'date_required', // label_key
  notInProject: 'not_in_project', // label_key
  keyMustBeLoginPassword: 'key_must_be_login_password', // label_key
  hostPatternInvalid: 'host_pattern_invalid', // item, label_key
  mustBeInteger: 'must_be_integer',
  mustBeNonNegative: 'must_be_non_negative',
  mustBeOneOf: 'must_be_one_of', // name, values
  // Other schema rules
  appIdInvalid: 'app_id_invalid',
  iconInvalid: 'icon_invalid',
  appPathInvalid: 'app_path_invalid',
  argumentsNotList: 'arguments_not_list',
  tooManyArguments: 'too_many_arguments', // max
  verificationCodeLength: 'verification_code_length', // length
  emailInvalid: 'email_invalid',
  usernameSpaces: 'username_spaces',
  backupNotGantry: 'backup_not_gantry',
  backupVersionUnsupported: 'backup_version_unsupported', // version
  flagInvalid: 'flag_invalid',
  tokenExpiryInvalid: 'token_expiry_invalid', // values
  headerNameInvalid: 'header_name_invalid',
  pathOutsideRepository: 'path_outside_repository',
  incorrectUrl: 'incorrect_url',
  incorrectBranch: 'incorrect_branch',
  enumValuesRequired: 'enum_values_required',
  enumValueNameRequired: 'enum_value_name_required',
  enumValuesUnique: 'enum_values_unique',
  vaultScriptName: 'vault_script_name',
  playbookPathInvalid: 'playbook_path_invalid',
  vaultNamesUnique: 'vault_names_unique',
  vaultUnnamedOnce: 'vault_unnamed_once',
  cronInvalid: 'cron_invalid',
  cronFiveFields: 'cron_five_fields',
  aliasInvalid: 'alias_invalid',
  // Sign-in, users, API tokens
  incorrectLogin: 'incorrect_login',
  tooManyAttempts: 'too_many_attempts',
  totpRequired: 'totp_required',
  incorrectVerificationCode: 'incorrect_verification_code',
  incorrectRecoveryCode: 'incorrect_recovery_code',
  totpDisabled: 'totp_disabled',
  totpExists: 'totp_exists',
  totpNotFound: 'totp_not_found',
  totpQrOwnOnly: 'totp_qr_own_only',
  totpConfirmOwnOnly: 'totp_confirm_own_only',
  recoveryDisabled: 'recovery_disabled',
  totpProofRequired: 'totp_proof_required',
  /**
   * The administrator requires two-factor sign-in and the user has none: only setting it up (and
   * the user's own info, signing out) is allowed until a code is confirmed; API tokens are refused.
   */
  totpEnrolmentRequired: 'totp_enrolment_required',
  /** The two-factor policy is set by GANTRY_TOTP_REQUIRED and cannot be changed through the API. */
  twoFactorPolicyFixed: 'two_factor_policy_fixed',
  passwordLoginDisabled: 'password_login_disabled',
  tokenInvalid: 'token_invalid',
  signInProviderUnknown: 'sign_in_provider_unknown',
  usersListForbidden: 'users_list_forbidden',
  userNotFound: 'user_not_found',
  adminFlagForbidden: 'admin_flag_forbidden',
  externalFlagForbidden: 'external_flag_forbidden',
  externalFlagFixed: 'external_flag_fixed',
  externalEmailFixed: 'external_email_fixed',
  lastAdmin: 'last_admin',
  cannotDeleteSelf: 'cannot_delete_self',
  externalUserNoPassword: 'external_user_no_password',
  usernameTaken: 'username_taken',
  emailTaken: 'email_taken',
  tokenNotFound: 'token_not_found',
  // Projects and their team
  projectCreateForbidden: 'project_create_forbidden',
  projectNotFound: 'project_not_found',
  alreadyMember: 'already_member',
  lastOwner: 'last_owner',
  notAMember: 'not_a_member',
  memberNotFound: 'member_not_found',
  ownerRoleForbidden: 'owner_role_forbidden',
  // Project resources
  keyNotFound: 'key_not_found',
  repositoryNotFound: 'repository_not_found',
  inventoryNotFound: 'inventory_not_found',
  variableGroupNotFound: 'variable_group_not_found',
  templateNotFound: 'template_not_found',
  viewNotFound: 'view_not_found',
  scheduleNotFound: 'schedule_not_found',
  integrationNotFound: 'integration_not_found',
  /** A schedule or integration must start exactly one thing: a template or a workflow, not both, not neither. */
  templateOrWorkflowRequired: 'template_or_workflow_required',
  /** "Run on new commit" (a schedule with a repository) starts a template only, never a workflow. */
  commitScheduleTemplateOnly: 'commit_schedule_template_only',
  aliasNotFound: 'alias_not_found',
  matcherNotFound: 'matcher_not_found',
  extractedValueNotFound: 'extracted_value_not_found',
  runnerNotFound: 'runner_not_found',
  taskNotFound: 'task_not_found',
  appNotFound: 'app_not_found',
  stateNotFound: 'state_not_found',
  keyInUse: 'key_in_use',
  keyUsedByAlias: 'key_used_by_alias',
  repositoryInUse: 'repository_in_use',
  inventoryInUse: 'inventory_in_use',
  variableGroupInUse: 'variable_group_in_use',
  templateInUse: 'template_in_use',
  appInUse: 'app_in_use',
  privateKeyInvalid: 'private_key_invalid',
  passphraseIncorrect: 'passphrase_incorrect',
  localPathNotAllowed: 'local_path_not_allowed',
  remoteHelperNotAllowed: 'remote_helper_not_allowed',
  workspaceNoBecomeKey: 'workspace_no_become_key',
  secretNotInGroup: 'secret_not_in_group',
  workspaceOtherTemplate: 'workspace_other_template',
  workspaceNotAttached: 'workspace_not_attached',
  defaultWorkspaceDetach: 'default_workspace_detach',
  notAWorkspaceForApp: 'not_a_workspace_for_app', // app
  templateDeploysItself: 'template_deploys_itself',
  integrationIdMismatch: 'integration_id_mismatch',
  headerTooLong: 'header_too_long', // header, max
  headerControlCharacters: 'header_control_characters', // header
  // Runners, tasks, apps
  runnerTokenInvalid: 'runner_token_invalid',
  taskFinished: 'task_finished',
  appInactive: 'app_inactive', // app
  appExists: 'app_exists', // app
  builtinAppDelete: 'builtin_app_delete',
  appArgsNotTaken: 'app_args_not_taken',
  buildVersionInvalid: 'build_version_invalid',
  commitHashInvalid: 'commit_hash_invalid',
  taskNotFinished: 'task_not_finished',
  taskNotWaiting: 'task_not_waiting',
  surveyValueRequired: 'survey_value_required', // title
  surveyValueInteger: 'survey_value_integer', // title
  surveyValueEnum: 'survey_value_enum', // title
  // Typed run parameters: an answer of the wrong type or outside its limits (all name the title)
  surveyValueNumber: 'survey_value_number', // title
  surveyValueMin: 'survey_value_min', // title, min
  surveyValueMax: 'survey_value_max', // title, max
  surveyValuePattern: 'survey_value_pattern', // title
  surveyValueBoolean: 'survey_value_boolean', // title
  surveyValueDate: 'survey_value_date', // title
  surveyValueList: 'survey_value_list', // title
  surveyValueText: 'survey_value_text', // title
  // ...and a parameter's settings that cannot work (all name the title)
  surveyLimitsNumericOnly: 'survey_limits_numeric_only',
  surveyLimitsOrder: 'survey_limits_order',
  surveyRegexTextOnly: 'survey_regex_text_only',
  surveyRegexInvalid: 'survey_regex_invalid',
  surveyOptionsSourceChoiceOnly: 'survey_options_source_choice_only',
  surveyDefaultInvalid: 'survey_default_invalid',
  /** A cascading options source names no other parameter of the template. */
  surveyOptionsParameterUnknown: 'survey_options_parameter_unknown', // title, parameter
  /** A schedule or an integration gives a secret parameter's answer, which it would store in clear. */
  surveySecretNotStored: 'survey_secret_not_stored', // title
  // Dynamic options of a choice parameter (GET .../survey/{name}/options, and the answer check at task start)
  /** The template has no parameter of that name. */
  surveyVariableNotFound: 'survey_variable_not_found', // variable
  /** The parameter is not a choice with an options source. */
  surveyOptionsNoSource: 'survey_options_no_source', // variable
  /** The inventory asked for is not one a task of this template may choose. */
  surveyOptionsInventory: 'survey_options_inventory',
  /** The template has no inventory to take hosts or groups from. */
  surveyOptionsNoInventory: 'survey_options_no_inventory',
  /** The inventory could not be listed (ansible-inventory failed). */
  surveyOptionsInventoryFailed: 'survey_options_inventory_failed',
  /** A URL source answered something other than a JSON list of strings or {name, value}. */
  surveyOptionsInvalid: 'survey_options_invalid',
  /** The answer is not among the parameter's current options. */
  surveyValueOption: 'survey_value_option', // title
  /** The options could not be read now and the answer was not among the last good ones. */
  surveyOptionsUnavailable: 'survey_options_unavailable', // title
  // Fetching a user-given URL (dynamic options, URL inventories): safe-fetch's refusals
  urlInvalid: 'url_invalid',
  urlPrivateAddress: 'url_private_address',
  urlTimeout: 'url_timeout',
  urlTooLarge: 'url_too_large',
  urlStatus: 'url_status',
  urlUnreachable: 'url_unreachable',
  urlRedirects: 'url_redirects',
  playbookOverride: 'playbook_override',
  variableNotInSurvey: 'variable_not_in_survey', // variable
  argumentsOverrideForbidden: 'arguments_override_forbidden',
  argumentNotAllowed: 'argument_not_allowed', // argument
  // Terraform/OpenTofu state backend
  terraformWorkspaceRequired: 'terraform_workspace_required',
  authKeyIncomplete: 'auth_key_incomplete',
  backendDenied: 'backend_denied',
  stateBodyInvalid: 'state_body_invalid',
  lockBodyInvalid: 'lock_body_invalid',
  lockContended: 'lock_contended',
  stateLocked: 'state_locked',
  statePurgeViaBackend: 'state_purge_via_backend',
  // Backups, metrics
  backupInvalid: 'backup_invalid', // problem
  semaphoreBackupInvalid: 'semaphore_backup_invalid', // problem
  restoreSectionTooLarge: 'restore_section_too_large', // count, field, max
  metricsTokenRequired: 'metrics_token_required',
  /** The code given to confirm a new two-factor method is not a current code of its secret. */
  totpCodeIncorrect: 'totp_code_incorrect',
  /**
   * An external sign-in provider (OpenID Connect) could not be reached or did not answer; with
   * `provider`, its display name (never its address: the detail is in the server log).
   */
  oidcProviderUnreachable: 'oidc_provider_unreachable',
  /** LDAP sign-in: the directory marks the account disabled (AD's ACCOUNTDISABLE, a ppolicy lock, GANTRY_LDAP_DISABLED_FILTER). */
  ldapAccountDisabled: 'ldap_account_disabled',
  /** LDAP sign-in: the directory could not be reached or used in time (503); the detail is in the server log. */
  ldapUnavailable: 'ldap_unavailable',
  /** LDAP sign-in: the directory vouched for the person, but their profile clashes with another account or lacks an email. */
  ldapAccountUnusable: 'ldap_account_unusable',
  // Group to role mapping (identity mappings)
  identityMappingNotFound: 'identity_mapping_not_found',
  /** A mapping's source is neither "ldap" nor a configured sign-in provider; `values` lists the known ones. */
  identitySourceUnknown: 'identity_source_unknown', // values
  /** A mapping that gives neither the admin flag nor a project role. */
  identityMappingEmpty: 'identity_mapping_empty',
  // Passkeys (WebAuthn)
  passkeyNotFound: 'passkey_not_found',
  /** The answer's challenge is unknown, spent, expired, or was handed to another session or browser. */
  passkeyChallengeInvalid: 'passkey_challenge_invalid',
  /** The passkey's answer did not verify (signature, origin, relying party, user verification, counter). */
  passkeyRejected: 'passkey_rejected',
  /** Removing one's own passkey needs the current password, a current code or a passkey's answer. */
  passkeyProofRequired: 'passkey_proof_required',
  /** Only users with a password here (not signing in through a directory or provider) register passkeys. */
  passkeyLocalOnly: 'passkey_local_only',
  // Workflows (each names the node at fault as `node`)
  workflowNotFound: 'workflow_not_found',
  workflowNodeIdInvalid: 'workflow_node_id_invalid',
  workflowEmpty: 'workflow_empty',
  workflowTooLarge: 'workflow_too_large', // max
  workflowDuplicateNode: 'workflow_duplicate_node', // node
  workflowDuplicateEdge: 'workflow_duplicate_edge', // node
  workflowUnknownNode: 'workflow_unknown_node', // node
  workflowCycle: 'workflow_cycle', // node
  workflowNodeTemplateRequired: 'workflow_node_template_required', // node
  workflowNodeWorkflowRequired: 'workflow_node_workflow_required', // node
  workflowApproversRequired: 'workflow_approvers_required', // node
  workflowTooFewApprovers: 'workflow_too_few_approvers', // node
  /** A node refers to a template, workflow, inventory, variable group or user not in this project. */
  workflowNodeNotInProject: 'workflow_node_not_in_project', // node, label_key
  /** A node changes what its template does not let a task change (branch, limit, inventory). */
  workflowOverrideNotAllowed: 'workflow_override_not_allowed', // node, label_key
  /** Nested workflows that would run each other without end. */
  workflowNestedCycle: 'workflow_nested_cycle', // node
  /** Another workflow runs this one (a node of type workflow): it cannot be deleted. */
  workflowInUse: 'workflow_in_use', // name
  /** Integrations start this workflow: they change first (its schedules go with it). */
  workflowHasIntegrations: 'workflow_has_integrations', // references
  // Approvals (workflow approval nodes and template approval policies)
  approvalNotFound: 'approval_not_found',
  /** The caller is not one of the approval's approvers (or is its requester and self-approval is off). */
  approvalNotApprover: 'approval_not_approver',
  /** The caller has already voted on this approval. */
  approvalAlreadyVoted: 'approval_already_voted',
  /** The approval was already approved, rejected or timed out. */
  approvalDecided: 'approval_decided', // status
  /** A signed approval link that is malformed, forged or for another user. */
  approvalLinkInvalid: 'approval_link_invalid',
  approvalLinkUsed: 'approval_link_used',
  approvalLinkExpired: 'approval_link_expired',
  /** An approval policy names no approver (no user, role or group). */
  approvalApproversRequired: 'approval_approvers_required',
  /** An approval policy names a user who is not a member of the project. */
  approverNotMember: 'approver_not_member', // user
  /** A workflow run that is not in this project (or this workflow). */
  workflowRunNotFound: 'workflow_run_not_found',
  /** Only a failed or stopped run may be resumed. */
  workflowRunNotResumable: 'workflow_run_not_resumable', // status
  /** A workflow's node runs this template: it cannot be deleted. */
  templateInWorkflow: 'template_in_workflow', // name
  /** A list of ids (a template's variable groups or inventories) names one twice. */
  duplicateIds: 'duplicate_ids', // label_key
  /** A task chose something at run time (variable group, inventory, branch) its template does not let it choose. */
  runChoiceNotAllowed: 'run_choice_not_allowed', // label_key
  /** A task's run-time choice is not one of those its template offers. */
  runChoiceNotOffered: 'run_choice_not_offered', // label_key
  /** A URL inventory's address is not an http(s) URL without credentials. */
  inventoryUrlInvalid: 'inventory_url_invalid',
  /** A workspace inventory was asked for its hosts. */
  inventoryNotListable: 'inventory_not_listable',
  /** A plan destroys more than the template's policy allows. */
  policyMaxDestroys: 'policy_max_destroys', // count, max
  /** A plan destroys a resource type the policy protects. */
  policyDenyDestroy: 'policy_deny_destroy', // type, addresses
  /** A plan creates a resource type the policy forbids. */
  policyDenyCreate: 'policy_deny_create', // type, addresses
  /** A Rego policy (conftest/opa) denied the plan. */
  policyDenied: 'policy_denied', // message
  /** The policy names a folder but neither conftest nor opa is installed. */
  policyToolMissing: 'policy_tool_missing', // path
  /** This plan's policy asks for a higher role to confirm it. */
  confirmRoleRequired: 'confirm_role_required', // role
  /** The state moved since the plan was made: the saved plan was not applied. */
  planStale: 'plan_stale',
  /** Drift checks are for Terraform/OpenTofu templates. */
  driftNotTerraform: 'drift_not_terraform',
  /** A state version of the diff is not one of this workspace's. */
  stateVersionNotFound: 'state_version_not_found',
  /** A notification destination or rule of this project (or global) does not exist. */
  notificationDestinationNotFound: 'notification_destination_not_found',
  notificationRuleNotFound: 'notification_rule_not_found',
  /** A destination's configuration field is missing or wrong for its kind. */
  notificationFieldRequired: 'notification_field_required', // name
  notificationFieldInvalid: 'notification_field_invalid', // name
  /** A webhook payload template uses a tag the template language does not have. */
  notificationTemplateInvalid: 'notification_template_invalid', // tag
  /** A rule names a template or schedule of another project, or a destination it cannot use. */
  notificationRuleScope: 'notification_rule_scope',
} as const;
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];
