// YAML files of the kinds models edit most, written for these tests: a CI workflow, Kubernetes
// manifests (several documents), a compose file with anchors and merge keys, an OpenAPI
// description. They use the features a piece of a file cannot judge alone: anchors and aliases,
// block scalars, flow collections over several lines, comments between entries, document markers.

export const WORKFLOW = `# Runs the checks on every push.
name: checks
on:
  push:
    branches: [main, "release/**"]
  pull_request:
    types: [opened, synchronize]
permissions:
  contents: read
env:
  NODE_OPTIONS: --max-old-space-size=4096
  CACHE_KEY: 'deps-v2'
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        node: [20, 22, 24]
        include:
          - node: 24
            coverage: true
    steps:
      - uses: actions/checkout@v4
      - name: set up node
        uses: actions/setup-node@v4
        with: { node-version: "\${{ matrix.node }}", cache: npm }
      - run: npm ci
      - name: test
        run: |
          npm test -- --reporter=dot
          npm run lint
      - name: coverage
        if: \${{ matrix.coverage }}
        run: >-
          npx vitest run
          --coverage
  release:
    needs: [test]
    runs-on: ubuntu-latest
    steps:
      - run: echo "publishing"  # placeholder
concurrency:
  group: checks-\${{ github.ref }}
  cancel-in-progress: true
`;

export const MANIFESTS = `apiVersion: v1
kind: ConfigMap
metadata:
  name: shop-config
  labels: {app: shop, tier: web}
data:
  LOG_LEVEL: info
  settings.ini: |
    [server]
    port = 8080
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: shop
spec:
  replicas: 3
  selector:
    matchLabels:
      app: shop
  template:
    metadata:
      labels:
        app: shop
    spec:
      containers:
        - name: web
          image: "registry.example/shop:1.4.2"
          ports:
            - containerPort: 8080
          env:
            - name: LOG_LEVEL
              valueFrom:
                configMapKeyRef: {name: shop-config, key: LOG_LEVEL}
          args: ["--port", "8080",
            "--workers", "4"]
          resources:
            limits: {cpu: 500m, memory: 256Mi}
# the service comes last
---
apiVersion: v1
kind: Service
metadata:
  name: shop
spec:
  ports:
  - port: 80
    targetPort: 8080
  selector:
    app: shop
...
`;

export const COMPOSE = `x-defaults: &defaults
  restart: unless-stopped
  logging:
    driver: json-file
    options: {max-size: 10m}

services:
  web:
    <<: *defaults
    image: shop/web:latest
    ports:
      - "8080:80"
    depends_on: [db, cache]
    environment:
      DATABASE_URL: postgres://shop@db/shop
  db:
    <<: *defaults
    image: postgres:16
    volumes:
      - data:/var/lib/postgresql/data
  cache:
    image: redis:7
    command: ["redis-server", "--save", ""]

volumes:
  data: {}
? complex key
: complex value
"quoted key": 1
'single': 2
3: number key
null: empty
`;

export const OPENAPI = `openapi: 3.1.0
info:
  title: Shop
  version: 1.0.0
  description: >
    Orders and the items in them.

    Every call needs a token.
paths:
  /orders:
    get:
      summary: List orders
      parameters:
        - $ref: '#/components/parameters/Page'
      responses:
        "200":
          description: the orders
          content:
            application/json:
              schema:
                type: array
                items: {$ref: '#/components/schemas/Order'}
  /orders/{id}:
    delete:
      responses:
        '204': {description: deleted}
components:
  parameters:
    Page:
      name: page
      in: query
      schema: {type: integer, minimum: 1}
  schemas:
    Order:
      type: object
      required: [id, items]
      properties:
        id: {type: string, format: uuid}
        items:
          type: array
          items:
            type: string
`;
