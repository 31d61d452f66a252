import type { Kysely } from 'kysely';
import type { Engine } from '../db.js';
import { keyText } from './helpers.js';

/**
 * Terraform/OpenTofu governance:
 * - `terraform_plan`: the saved plan of a task in numbers and per resource (`summary`, JSON text of
 *   PlanSummary, with the template's policy verdict), the role its policy asks to confirm it, and
 *   who confirmed it when. One row per task; gone with the task.
 * - `terraform_drift`: the last drift check's finding per template and workspace (`scope` is
 *   `<template_id>:<inventory_id or 0>`, so one row per pair on every engine).
 * - `schedule.type`: '' runs the template, 'drift_check' plans only and records drift.
 */
export async function up(db: Kysely<unknown>, engine: Engine): Promise<void> {
  await db.schema
    .createTable('terraform_plan')
    .addColumn('task_id', 'integer', (c) => c.primaryKey().references('task.id').onDelete('cascade'))
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('template_id', 'integer', (c) => c.notNull())
    .addColumn('inventory_id', 'integer')
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('confirm_role', 'varchar(32)')
    .addColumn('confirmed_by', 'integer')
    .addColumn('confirmed_at', 'varchar(32)')
    .addColumn('created', 'varchar(32)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('terraform_plan_project_idx').on('terraform_plan').columns(['project_id']).execute();

  await db.schema
    .createTable('terraform_drift')
    .addColumn('scope', keyText(engine, 64), (c) => c.primaryKey())
    .addColumn('project_id', 'integer', (c) => c.notNull().references('project.id').onDelete('cascade'))
    .addColumn('template_id', 'integer', (c) => c.notNull().references('template.id').onDelete('cascade'))
    .addColumn('inventory_id', 'integer')
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('checked_at', 'varchar(32)', (c) => c.notNull())
    .addColumn('summary', 'text')
    .addColumn('task_id', 'integer')
    .addColumn('refresh_only', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('terraform_drift_inventory_idx').on('terraform_drift').columns(['inventory_id']).execute();

  await db.schema
    .alterTable('schedule')
    .addColumn('type', 'varchar(32)', (c) => c.notNull().defaultTo(''))
    .execute();
}
