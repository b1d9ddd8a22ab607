// The settings screen: workspace and templates (settings.tsx).
export const SettingsDocument = /* GraphQL */ `
  query DashboardSettings($workspaceId: ID!) {
    workspace(id: $workspaceId) {
      id
      name
      brandName
      portalSettings
    }
    templates(first: 50) {
      edges {
        node {
          id
          kind
          name
          isDefault
          accentColor
          logoUrl
          tagline
          footerText
          thankYouText
        }
      }
    }
  }
`;

export const UpdateWorkspaceDocument = /* GraphQL */ `
  mutation DashboardUpdateWorkspace($id: ID!, $input: UpdateWorkspaceInput!) {
    updateWorkspace(id: $id, input: $input) {
      id
      name
      brandName
      portalSettings
    }
  }
`;

export const CreateTemplateDocument = /* GraphQL */ `
  mutation DashboardCreateTemplate($input: CreateTemplateInput!, $idempotencyKey: String!) {
    createTemplate(input: $input, idempotencyKey: $idempotencyKey) {
      id
      kind
      name
      isDefault
      accentColor
      logoUrl
      tagline
      footerText
      thankYouText
    }
  }
`;

export const UpdateTemplateDocument = /* GraphQL */ `
  mutation DashboardUpdateTemplate($id: ID!, $input: UpdateTemplateInput!, $idempotencyKey: String!) {
    updateTemplate(id: $id, input: $input, idempotencyKey: $idempotencyKey) {
      id
      kind
      name
      isDefault
      accentColor
      logoUrl
      tagline
      footerText
      thankYouText
    }
  }
`;
