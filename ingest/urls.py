from django.urls import path

from . import views

urlpatterns = [
    path("ingestion/", views.ingest_jobs, name="oracle-ingest-jobs"),
    path("ingestion/nouvelle/", views.ingest_new, name="oracle-ingest-new"),
    path("ingestion/<uuid:job_id>/", views.ingest_job, name="oracle-ingest-job"),
]
