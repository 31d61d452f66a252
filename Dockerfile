# Gantry server + web console. Build: `podman build -t gantry .` (or docker build).
# Run flags the task sandbox (bubblewrap, as the non-root user gantry) needs: see docker-compose.yml.

FROM node:22-bookworm-slim AS build
# better-sqlite3 compiles from source when no prebuilt binary downloads.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/contracts/package.json packages/contracts/
COPY apps/server/package.json apps/server/
COPY apps/web/package.json apps/web/
# Build native modules against the image's own Node headers, not a download.
ENV npm_config_nodedir=/usr/local
# Behind a TLS-inspecting proxy, pass its CA bundle for this step only (never kept in the image):
# podman build --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt .
RUN --mount=type=secret,id=ca NODE_EXTRA_CA_CERTS=/run/secrets/ca npm ci --no-audit --no-fund
COPY tsconfig.base.json ./
COPY packages/contracts packages/contracts
COPY apps/server apps/server
COPY apps/web apps/web
RUN npm run build
# The runtime needs the server's production dependencies only: the console is served as built files,
# so its libraries (MUI, CodeMirror, charts: ~300 MB) stay behind. Reinstalled from npm's cache with
# scripts off, then better-sqlite3's already compiled binding is put back (same lockfile, same Node).
RUN --mount=type=secret,id=ca mv node_modules/better-sqlite3/build /tmp/better-sqlite3-build \
 && rm -rf node_modules apps/*/node_modules packages/*/node_modules \
 && NODE_EXTRA_CA_CERTS=/run/secrets/ca npm ci --omit=dev --workspace @gantry/server --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/better-sqlite3/build && mv /tmp/better-sqlite3-build node_modules/better-sqlite3/build \
 && rm -rf node_modules/better-sqlite3/build/Release/obj* node_modules/better-sqlite3/build/Release/*.a \
      node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
 && rm -rf packages/contracts/src apps/server/src apps/web/src apps/web/e2e /root/.npm

FROM node:22-bookworm-slim
ARG TERRAFORM_VERSION=
# Tools tasks run with; bubblewrap + slirp4netns + iproute2 give each task its own sandbox and network.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git openssh-client ansible-core bubblewrap slirp4netns \
      iproute2 ca-certificates curl unzip \
 && if [ -n "$TERRAFORM_VERSION" ]; then \
      curl -fsSLo /tmp/tf.zip "https://releases.hashicorp.com/terraform/${TERRAFORM_VERSION}/terraform_${TERRAFORM_VERSION}_linux_amd64.zip" \
      && unzip -d /usr/local/bin /tmp/tf.zip terraform && rm /tmp/tf.zip; \
    fi \
 && apt-get purge -y curl unzip && apt-get autoremove -y && rm -rf /var/lib/apt/lists/*
RUN groupadd --system gantry && useradd --system --gid gantry --home-dir /var/lib/gantry --create-home gantry
WORKDIR /app
COPY --from=build /app /app
ENV NODE_ENV=production \
    GANTRY_PORT=3000 \
    GANTRY_HOST=0.0.0.0 \
    GANTRY_DATA_DIR=/var/lib/gantry/data
RUN mkdir -p /var/lib/gantry/data && chown -R gantry:gantry /var/lib/gantry
USER gantry
VOLUME ["/var/lib/gantry/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.GANTRY_PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# What `npm start` runs once built: `gantry server` (migrations run as it starts).
CMD ["node", "apps/server/bin/gantry.mjs", "server"]
