from django.urls import path

from . import views

urlpatterns = [
    path("ingestion/", views.ingest_jobs, name="oracle-ingest-jobs"),
    path("ingestion/nouvelle/", views.ingest_new, name="oracle-ingest-new"),
    path("ingestion/<uuid:job_id>/", views.ingest_job, name="oracle-ingest-job"),
    path("ingestion/<uuid:job_id>/langue/", views.ingest_correct_language, name="oracle-ingest-correct-language"),
]
